# A part-of-speech tagger: embedding, LSTM, linear, log-softmax (optrace scan example).
import torch
import torch.nn as nn
import torch.nn.functional as F


class LSTMTagger(nn.Module):
    def __init__(self, vocab, tags, embed=64, hidden=128):
        super().__init__()
        self.embed = nn.Embedding(vocab, embed)
        self.lstm = nn.LSTM(embed, hidden, batch_first=True)
        self.tag = nn.Linear(hidden, tags)

    def forward(self, tokens):
        out, _ = self.lstm(self.embed(tokens))
        return F.log_softmax(self.tag(out), dim=-1)


def step(model, tokens, targets, opt):
    loss = F.nll_loss(model(tokens).flatten(0, 1), targets.flatten())
    opt.zero_grad()
    loss.backward()
    handler = getattr(opt, "step")
    handler()
    return loss

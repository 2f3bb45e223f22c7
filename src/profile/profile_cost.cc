// The bytes/FLOPs model and the device table (profile_cost.h says what and
// why). Families are told by the aten op's name; shapes follow the op's
// schema order as the profiler records its inputs.
#include "profile/profile_cost.h"

#include <algorithm>
#include <cstdlib>

namespace optrace {

namespace {

double Numel(const std::vector<int64_t>& d) {
  double n = 1;
  for (int64_t x : d) n *= static_cast<double>(x);
  return n;
}

bool Has(std::string_view s, std::string_view w) { return s.find(w) != std::string_view::npos; }

std::string_view Base(std::string_view op) {
  if (op.substr(0, 6) == "aten::") op.remove_prefix(6);
  return op;
}

// Integer list of a concrete input as recorded ("[1, 1]", "1"); empty when not one.
std::vector<int64_t> IntList(const std::vector<std::string>& concrete, size_t i) {
  std::vector<int64_t> out;
  if (i >= concrete.size()) return out;
  const std::string& s = concrete[i];
  const char* p = s.c_str();
  while (*p) {
    if ((*p >= '0' && *p <= '9') || *p == '-') {
      char* end = nullptr;
      out.push_back(std::strtoll(p, &end, 10));
      p = end;
    } else {
      ++p;
    }
  }
  return out;
}

// Every tensor input once, and an output of the largest input's size (elementwise and normalization).
double TensorBytes(const std::vector<std::vector<int64_t>>& dims, const std::vector<std::string>& types, int fallback) {
  double b = 0;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i].empty()) continue;
    int e = i < types.size() ? DtypeBytes(types[i]) : 0;
    b += Numel(dims[i]) * (e ? e : fallback);
  }
  return b;
}

double LargestInput(const std::vector<std::vector<int64_t>>& dims) {
  double m = 0;
  for (const auto& d : dims) {
    if (!d.empty()) m = std::max(m, Numel(d));
  }
  return m;
}

OpCost Matmul(std::string_view op, const std::vector<std::vector<int64_t>>& dims, int e) {
  // mm(a[M,K], b[K,N]); addmm(bias, a, b); bmm(a[B,M,K], b[B,K,N]); baddbmm(bias, a, b); linear(x[...,K], w[N,K], bias)
  OpCost c;
  c.family = "matmul";
  size_t a = (op == "addmm" || op == "baddbmm" || op == "addbmm") ? 1 : 0;
  if (dims.size() < a + 2) return OpCost();
  const auto& x = dims[a];
  const auto& w = dims[a + 1];
  double m = 0, n = 0, k = 0, batch = 1;
  if (op == "linear") {
    if (x.empty() || w.size() != 2) return OpCost();
    k = static_cast<double>(x.back());
    m = Numel(x) / k;
    n = static_cast<double>(w[0]);
  } else if (x.size() == 2 && w.size() == 2) {
    m = static_cast<double>(x[0]);
    k = static_cast<double>(x[1]);
    n = static_cast<double>(w[1]);
  } else if (x.size() == 3 && w.size() == 3) {
    batch = static_cast<double>(x[0]);
    m = static_cast<double>(x[1]);
    k = static_cast<double>(x[2]);
    n = static_cast<double>(w[2]);
  } else {
    return OpCost();
  }
  c.flops = 2 * batch * m * n * k;
  c.bytes = batch * (m * k + k * n + m * n) * e;
  if (a == 1 && !dims[0].empty()) c.bytes += Numel(dims[0]) * e;
  c.note = "2*M*N*K; A, B read and C written once";
  return c;
}

OpCost Conv(std::string_view op, const std::vector<std::vector<int64_t>>& dims,
            const std::vector<std::string>& concrete, int e) {
  OpCost c;
  c.family = "conv";
  if (op == "convolution_backward") {
    // convolution_backward(grad_output[N,K,Ho,Wo], input[N,C,H,W], weight[K,C/g,R,S], ...): the two
    // products of the backward (grad input, grad weight), each as large as the forward.
    if (dims.size() < 3 || dims[0].size() < 3 || dims[2].size() < 3) return OpCost();
    double spatial_out = Numel(dims[0]) / static_cast<double>(dims[0][0] * dims[0][1]);
    double fwd = 2 * static_cast<double>(dims[0][0]) * Numel(dims[2]) * spatial_out;
    c.flops = 2 * fwd;
    c.bytes = (Numel(dims[0]) + 2 * Numel(dims[1]) + 2 * Numel(dims[2])) * e;
    c.note = "grad input + grad weight, each 2*N*K*C/g*R*S*Hout*Wout";
    return c;
  }
  // convolution / _convolution / cudnn_convolution(input, weight, bias?, stride, padding, dilation, ...)
  if (dims.size() < 2 || dims[0].size() < 3 || dims[1].size() != dims[0].size()) return OpCost();
  const auto& x = dims[0];
  const auto& w = dims[1];
  size_t sp = x.size() - 2;
  // convolution(input, weight, bias, stride, padding, dilation, ...); cudnn_convolution(self, weight,
  // padding, stride, dilation, ...) has no bias and padding first.
  const bool cudnn = op == "cudnn_convolution";
  std::vector<int64_t> stride = IntList(concrete, cudnn ? 3 : 3), pad = IntList(concrete, cudnn ? 2 : 4),
                       dil = IntList(concrete, cudnn ? 4 : 5);
  if (stride.size() != sp || pad.size() != sp || dil.size() != sp) {
    c.family.clear();
    c.note = "convolution without its stride/padding/dilation recorded (Concrete Inputs): no estimate";
    return c;
  }
  double out_spatial = 1;
  for (size_t i = 0; i < sp; ++i) {
    int64_t o = (x[2 + i] + 2 * pad[i] - dil[i] * (w[2 + i] - 1) - 1) / stride[i] + 1;
    if (o <= 0) return OpCost();
    out_spatial *= static_cast<double>(o);
  }
  double out = static_cast<double>(x[0]) * static_cast<double>(w[0]) * out_spatial;
  c.flops = 2 * static_cast<double>(x[0]) * Numel(w) * out_spatial;
  c.bytes = (Numel(x) + Numel(w) + out) * e;
  c.note = "2*N*K*C/g*R*S*Hout*Wout; input, weight read and output written once";
  return c;
}

OpCost Attention(std::string_view op, const std::vector<std::vector<int64_t>>& dims, int e) {
  // q[B,H,L,D], k[B,H,S,D], v[B,H,S,Dv]; the backward ops take grad_out first.
  OpCost c;
  c.family = "attention";
  bool bwd = Has(op, "backward");
  size_t q = bwd ? 1 : 0;
  if (dims.size() < q + 3 || dims[q].size() != 4 || dims[q + 1].size() != 4) return OpCost();
  const auto& Q = dims[q];
  const auto& K = dims[q + 1];
  double b = static_cast<double>(Q[0]) * static_cast<double>(Q[1]), l = static_cast<double>(Q[2]),
         s = static_cast<double>(K[2]), d = static_cast<double>(Q[3]);
  c.flops = (bwd ? 10 : 4) * b * l * s * d;
  c.bytes = (bwd ? 2 : 1) * (Numel(Q) + Numel(K) + Numel(dims[q + 2]) + b * l * d) * e;
  c.note = bwd ? "5 products of 2*B*H*L*S*D; q, k, v, out and their grads once"
               : "QK^T and PV, 2*B*H*L*S*D each (a causal mask halves the work: not taken off)";
  return c;
}

}  // namespace

int DtypeBytes(std::string_view t) {
  std::string n = ProfilerDtypeName(t);
  if (n == "float64" || n == "int64" || n == "complex64") return 8;
  if (n == "float32" || n == "int32") return 4;
  if (n == "bfloat16" || n == "float16" || n == "int16") return 2;
  if (n == "int8" || n == "uint8" || n == "bool" || n == "float8") return 1;
  return 0;
}

std::string ProfilerDtypeName(std::string_view t) {
  if (Has(t, "BFloat16")) return "bfloat16";
  if (Has(t, "Half")) return "float16";
  if (Has(t, "Float8")) return "float8";
  if (Has(t, "complex<float>")) return "complex64";
  if (t == "float") return "float32";
  if (t == "double") return "float64";
  if (t == "long int" || t == "long" || t == "int64_t") return "int64";
  if (t == "int") return "int32";
  if (t == "short int") return "int16";
  if (t == "signed char") return "int8";
  if (t == "unsigned char") return "uint8";
  if (t == "bool") return "bool";
  return "";
}

OpCost EstimateOpCost(std::string_view full, const std::vector<std::vector<int64_t>>& dims,
                      const std::vector<std::string>& types, const std::vector<std::string>& concrete) {
  std::string_view op = Base(full);
  int e = 0;
  std::string dtype;
  for (size_t i = 0; i < dims.size() && i < types.size(); ++i) {
    if (!dims[i].empty() && DtypeBytes(types[i])) {
      e = DtypeBytes(types[i]);
      dtype = ProfilerDtypeName(types[i]);
      break;
    }
  }
  OpCost c;
  if (e == 0) {
    c.note = "no tensor input with a known dtype recorded";
    return c;
  }
  if (op == "mm" || op == "addmm" || op == "bmm" || op == "baddbmm" || op == "linear" || op == "addbmm") {
    c = Matmul(op, dims, e);
  } else if (op == "convolution" || op == "_convolution" || op == "cudnn_convolution" || op == "convolution_backward") {
    c = Conv(op, dims, concrete, e);
  } else if (Has(op, "scaled_dot_product") || Has(op, "flash_attention") || Has(op, "efficient_attention") ||
             Has(op, "cudnn_attention")) {
    c = Attention(op, dims, e);
  } else if (Has(op, "layer_norm") || Has(op, "batch_norm") || Has(op, "group_norm") || Has(op, "rms_norm")) {
    c.family = "norm";
    double n = LargestInput(dims);
    bool bwd = Has(op, "backward");
    c.bytes = (TensorBytes(dims, types, e) + n * e);  // inputs (with stats/weights) read, one output written
    c.flops = (bwd ? 8 : 5) * n;
    c.note = "inputs read and the normalized tensor written once; ~5 (backward ~8) ops per element";
  } else if (Has(op, "softmax")) {
    c.family = "softmax";
    double n = LargestInput(dims);
    c.bytes = TensorBytes(dims, types, e) + n * e;
    c.flops = 5 * n;
    c.note = "read once, written once; max, exp, sum, divide";
  } else if (op == "sum" || op == "mean" || op == "amax" || op == "amin" || op == "max" || op == "min" ||
             op == "prod" || op == "norm" || op == "linalg_vector_norm" || op == "var" || op == "std" ||
             op == "argmax" || op == "argmin" || op == "any" || op == "all" || op == "var_mean" || op == "std_mean") {
    c.family = "reduction";
    c.bytes = TensorBytes(dims, types, e);
    c.flops = LargestInput(dims);
    c.note = "input read once (the reduced output is negligible); one op per element";
  } else {
    // Elementwise (unary, binary, in-place, copies, activations and their backward) and foreach ops.
    static const char* kElementwise[] = {
        "add",        "sub",       "mul",   "div",      "copy",        "fill",      "gelu",    "relu",
        "silu",       "sigmoid",   "tanh",  "exp",      "log",         "pow",       "sqrt",    "rsqrt",
        "neg",        "abs",       "clamp", "where",    "masked_fill", "threshold", "lerp",    "addcmul",
        "addcdiv",    "_foreach_", "to",    "_to_copy", "zero_",       "dropout",   "maximum", "minimum",
        "reciprocal", "sign",      "cos",   "sin",      "erf"};
    bool ew = false;
    for (const char* w : kElementwise) ew = ew || op.substr(0, std::string_view(w).size()) == w;
    if (!ew) {
      c.note = "no model for " + std::string(op);
      return c;
    }
    c.family = "elementwise";
    double n = LargestInput(dims);
    bool inplace = !op.empty() && op.back() == '_';
    c.bytes = TensorBytes(dims, types, e) + (inplace ? 0 : n * e);
    c.flops = n;
    c.note = inplace ? "inputs read once, written in place" : "inputs read once, one output written";
  }
  c.dtype = dtype;
  return c;
}

// Dense (not sparse) peaks from NVIDIA's datasheets:
//  H100 SXM5: "NVIDIA H100 Tensor Core GPU" datasheet -- 3.35 TB/s HBM3, BF16 989 TFLOPS dense (1,979 with
//    sparsity), TF32 494 dense, FP32 67.
//  H200 SXM: "NVIDIA H200 Tensor Core GPU" datasheet -- 4.8 TB/s HBM3e, BF16 989 dense, TF32 494 dense, FP32 67.
//  A100 SXM4 80GB: "NVIDIA A100 Tensor Core GPU" datasheet -- 2,039 GB/s HBM2e, BF16 312, TF32 156, FP32 19.5.
//  B200 (HGX B200): "NVIDIA Blackwell / HGX B200" datasheet -- 8 TB/s HBM3e, BF16 2.25 PFLOPS dense (4.5 sparse),
//    TF32 1.1 PFLOPS dense; FP32 not listed here.
//  L40S: "NVIDIA L40S GPU" datasheet -- 864 GB/s GDDR6, BF16 362 dense (733 sparse), TF32 183 dense, FP32 91.6.
const std::vector<DevicePeak>& DevicePeaks() {
  static const std::vector<DevicePeak> kPeaks = {
      {"H100", 3.35, 989, 494, 67, "NVIDIA H100 Tensor Core GPU datasheet (SXM5)"},
      {"H200", 4.8, 989, 494, 67, "NVIDIA H200 Tensor Core GPU datasheet (SXM)"},
      {"A100", 2.039, 312, 156, 19.5, "NVIDIA A100 Tensor Core GPU datasheet (SXM4 80GB)"},
      {"B200", 8.0, 2250, 1100, 0, "NVIDIA HGX B200 datasheet (per GPU)"},
      {"L40S", 0.864, 362, 183, 91.6, "NVIDIA L40S GPU datasheet"},
  };
  return kPeaks;
}

const DevicePeak* FindDevicePeak(std::string_view device) {
  for (const DevicePeak& d : DevicePeaks()) {
    if (device.find(d.name) != std::string_view::npos) return &d;
  }
  return nullptr;
}

double ComputePeakTflops(const DevicePeak& d, const std::string& family, const std::string& dtype) {
  if (family != "matmul" && family != "conv" && family != "attention") return 0;
  if (dtype == "bfloat16" || dtype == "float16") return d.bf16_tflops;
  if (dtype == "float32") return family == "conv" ? d.tf32_tflops : d.fp32_tflops;
  return 0;
}

}  // namespace optrace

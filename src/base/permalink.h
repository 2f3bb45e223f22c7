// Permalinks: every file:line of an answer also as a URL an agent can cite at
// the checkout's exact version (issue 27: TileGym's kernel inventory asks each
// reference to begin with `# Source: <commit permalink with line anchors>`).
// The version comes from the checkout itself -- the commit of its git
// metadata when it has some, else the release tag its version.txt names --
// and when neither says which tree this is, there is no link: a link to
// another version's line would cite the wrong code.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

namespace optrace {

// The release tag of a version.txt value: "2.6.0a0" and "2.6.0" -> "v2.6.0"
// (a release branch's version.txt keeps the a0 of its development cycle),
// "2.6.0rc2" -> "v2.6.0-rc2", "2.6.0a0+git1a2b3c4" -> "1a2b3c4" (the commit a
// source build records); "" for anything else (nightlies, unknown forms).
std::string RefOfVersion(const std::string& version);

// The commit HEAD of a git checkout at `root` names (a detached HEAD, a branch
// through refs/ or packed-refs, a worktree's `.git` file); "" when none.
std::string GitHeadCommit(const std::string& root);

// "https://github.com/pytorch/pytorch/blob/<ref>/" for the checkout, from its
// git metadata first, else its version; "" when neither names a tree.
std::string PermalinkBase(const std::string& root, const std::string& version);

// base + file + "#L" + line.
std::string Permalink(const std::string& base, const std::string& file, int64_t line);

// Adds "url" beside every {"file": string, "line": integer} pair in `value`
// (at any depth); nothing when base is empty.
void AddPermalinks(nlohmann::ordered_json* value, const std::string& base);

}  // namespace optrace

// Layers: after an edit to a few files, their records as now scanned in a
// small file over the image instead of a new image (doc/index-format.md,
// "Layers"). BuildLayer decides whether the changes allow one and builds it;
// ApplyLayer puts a loaded layer over its image.
#include <map>

#include "cpp/cpp_index_writer.h"
#include "index/store_internal.h"

namespace optrace {
namespace store_internal {

// Puts `layer` over the image: its C++ records over the image's C++ index,
// its modules into the image's Python index (moved: the layer's mapping must
// stay), its stamps over the image's. False, changing nothing, when it does
// not fit.
bool ApplyLayer(ImageRoot* img, LayerRoot* layer) {
  auto fits = [](const std::vector<std::pair<uint32_t, TrackedFile>>& stamps, const std::vector<TrackedFile>& files) {
    for (const auto& [k, stamp] : stamps)
      if (k >= files.size() || files[k].path != stamp.path) return false;
    return true;
  };
  if (!fits(layer->cpp_stamps, img->cpp_files) || !fits(layer->py_stamps, img->py_files)) return false;
  for (const auto& [m, module] : layer->py_modules)
    if (!img->py.CanReplace(m, module)) return false;
  if (!img->cpp.SetLayer(&layer->cpp)) return false;
  for (auto& [m, module] : layer->py_modules) img->py.ReplaceModule(m, std::move(module));
  auto patch = [](const std::vector<std::pair<uint32_t, TrackedFile>>& stamps, std::vector<TrackedFile>* files) {
    for (const auto& [k, stamp] : stamps) {
      TrackedFile& t = (*files)[k];
      t.size = stamp.size;
      t.mtime_ns = stamp.mtime_ns;
      t.hash = stamp.hash;
      t.ctime_ns = stamp.ctime_ns;
      t.ino = stamp.ino;
    }
  };
  patch(layer->cpp_stamps, &img->cpp_files);
  patch(layer->py_stamps, &img->py_files);
  img->dirs = layer->dirs;
  return true;
}

// How many files a layer replaces.
size_t ReplacedFiles(const LayerRoot& layer) {
  size_t n = layer.py_modules.size();
  for (uint32_t id = 0; id < layer.cpp.files().size(); ++id) n += layer.cpp.Replaces(id);
  return n;
}

// Builds a layer over `img` (with its current layer, if any, applied) for the
// changes found, when they allow one: no YAML input changed, no file was
// added or removed or changed whether it is indexed, each C++ file keeps its
// cross-file facts (SameCrossFileFacts), and the layer stays small.
// The new layer holds the old layer's files as well. False: the changes need
// a new image.
bool BuildLayer(const StoreTree& tree, ImageRoot* img, const LayerRoot* old_layer, const Changes& changes,
                const StoreOptions& options, StoreReport* report, LayerResult* result) {
  if (changes.yaml_changed) return false;
  const RealDisk* real = dynamic_cast<const RealDisk*>(tree.disk.get());
  auto t0 = Clock::now();
  // A directory changed (an editor's temporary file, say): fine if the
  // listing did not. The directories are walked again -- before the listing,
  // as in a full build, so that a file created in between is seen next time
  // -- on a second thread while the changed files are scanned.
  std::vector<TrackedFile> dirs;
  std::thread walker;
  if (changes.listing_changed) {
    // No directories to walk (a MemoryDisk tree): its listing changed.
    if (!real || !img->watch_dirs) return false;
    walker = std::thread([&] { WalkDirs(*real, &dirs); });
  }
  // C++ files first, then Python ones.
  const size_t ncpp = changes.cpp.size();
  std::vector<Scanned> scanned(ncpp + changes.py.size());
  ParallelFor(scanned.size(), Threads(options.threads), [&](size_t j) {
    thread_local std::string text;
    const bool is_py = j >= ncpp;
    const TrackedFile& old = is_py ? img->py_files[changes.py[j - ncpp]] : img->cpp_files[changes.cpp[j]];
    ScanOne(tree, real, old.path, is_py, &old, &text, &scanned[j]);
  });
  if (walker.joinable()) {
    walker.join();
    if (!ListingMatches(ListScope(*tree.disk), *img)) return false;
  } else {
    dirs = img->dirs;
  }
  size_t rescanned = 0;  // reported only if the layer is built
  // The image's file ids number its indexed files in listing order.
  std::vector<uint32_t> file_id(img->cpp_files.size(), UINT32_MAX);
  for (uint32_t k = 0, id = 0; k < file_id.size(); ++k)
    if (img->cpp_skip_reasons[k].empty()) file_id[k] = id++;
  std::vector<std::pair<uint32_t, const CppFileRecords*>> fresh;  // file id -> new records
  for (size_t j = 0; j < ncpp; ++j) {
    const Scanned& sc = scanned[j];
    if (sc.reuse) continue;
    const uint32_t k = changes.cpp[j];
    if (file_id[k] == UINT32_MAX || !sc.cpp.skip_reason.empty()) return false;
    // Contents another file has or had: which of them is a duplicate changes.
    for (size_t other = 0; other < img->cpp_files.size(); ++other)
      if (other != k &&
          (img->cpp_files[other].hash == sc.file.hash || img->cpp_files[other].hash == img->cpp_files[k].hash))
        return false;
    if (!SameCrossFileFacts(img->cpp.RecordsOf(file_id[k]), sc.cpp.records)) return false;
    fresh.emplace_back(file_id[k], &sc.cpp.records);
    ++rescanned;
  }
  std::sort(fresh.begin(), fresh.end());
  std::vector<uint32_t> ids;  // every file of the new layer
  for (uint32_t id = 0; id < img->cpp.files().size(); ++id)
    if (img->cpp.Replaced(id)) ids.push_back(id);
  for (const auto& f : fresh) ids.push_back(f.first);
  std::sort(ids.begin(), ids.end());
  ids.erase(std::unique(ids.begin(), ids.end()), ids.end());
  // Modules: the old layer's (as the image's index now holds them) and the rescanned ones.
  std::map<uint32_t, const PyModule*> modules;
  if (old_layer)
    for (const auto& [m, module] : old_layer->py_modules) modules[m] = &img->py.modules()[m];
  for (size_t j = ncpp; j < scanned.size(); ++j) {
    if (scanned[j].reuse) continue;
    // ReplaceModule takes only the same kind of module (an unreadable
    // __init__.py is scanned as no package): else a new image.
    if (!img->py.CanReplace(changes.py[j - ncpp], scanned[j].py)) return false;
    modules[changes.py[j - ncpp]] = &scanned[j].py;
    ++rescanned;
  }
  if (ids.size() + modules.size() > kMaxLayerFiles) return false;
  std::map<uint32_t, TrackedFile> stamps, py_stamps;
  if (old_layer) {
    for (const auto& [k, stamp] : old_layer->cpp_stamps) stamps[k] = stamp;
    for (const auto& [k, stamp] : old_layer->py_stamps) py_stamps[k] = stamp;
  }
  for (size_t j = 0; j < ncpp; ++j) stamps[changes.cpp[j]] = scanned[j].file;
  for (size_t j = ncpp; j < scanned.size(); ++j) py_stamps[changes.py[j - ncpp]] = scanned[j].file;
  report->cpp_files = img->cpp_files.size();
  report->py_files = img->py_files.size();
  report->scan_ms = MsSince(t0);

  auto t1 = Clock::now();
  std::string arena_error;
  const int slot = old_layer ? 5 - ArenaSlotOf(old_layer) : 2;
  Arena* arena = Arena::Create(slot, &arena_error);
  if (!arena) return false;  // no free slot: a new image instead
  ArenaScope scope(arena);
  LayerRoot* layer = new LayerRoot;
  layer->cpp_stamps.assign(stamps.begin(), stamps.end());
  layer->py_stamps.assign(py_stamps.begin(), py_stamps.end());
  layer->dirs = dirs;
  layer->py_modules.reserve(modules.size());
  for (const auto& [m, module] : modules) layer->py_modules.emplace_back(m, *module);
  CppIndexWriter writer(&layer->cpp);
  writer.BeginLayer(img->cpp);
  size_t next_fresh = 0;
  for (uint32_t id : ids) {
    if (next_fresh < fresh.size() && fresh[next_fresh].first == id) {
      writer.AddLayerFile(id, img->cpp.file(id), *fresh[next_fresh++].second);
      continue;
    }
    // Kept from the old layer; the copy on the heap, AddLayerFile's in the layer.
    CppFileRecords kept = [&] {
      ArenaScope heap(nullptr);
      return img->cpp.RecordsOf(id);
    }();
    writer.AddLayerFile(id, img->cpp.file(id), kept);
  }
  writer.FinishLayer(img->cpp);
  report->merge_ms = MsSince(t1);
  report->rescanned = rescanned;
  result->layer = layer;
  result->arena = arena;
  return true;
}
}  // namespace store_internal
}  // namespace optrace

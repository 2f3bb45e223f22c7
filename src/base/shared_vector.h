// SharedVector: a vector whose copies share one array until one of them is
// changed (copy on write).
//
// Why: a trace replays an op's remembered expansion (trace/op_expansions.cc)
// by copying it, and most of what it copies -- implementations, helpers,
// kernels, stubs, the ops the code calls -- the trace never changes. With
// plain vectors `trace --all` spent a tenth of its time copying and freeing
// those steps; a SharedVector copy is one reference count.
//
// Reading is a plain const vector's (begin/end/size/operator[] are const
// only, so iterating a non-const one never copies it). Changing goes through
// Edit(), which makes the array this copy's own first when another copy
// shares it; push_back/emplace_back and assignment are Edit()'s shorthands.
// A shared array is never changed, so copies may be read from other threads
// (a memo's) while this one is edited.
#pragma once

#include <atomic>
#include <initializer_list>
#include <memory>
#include <utility>
#include <vector>

namespace optrace {

template <class T>
class SharedVector {
 public:
  using value_type = T;
  using size_type = typename std::vector<T>::size_type;
  using const_iterator = typename std::vector<T>::const_iterator;
  using iterator = const_iterator;  // reading only: changing is Edit()'s
  using const_reference = const T&;
  using reference = const T&;

  SharedVector() = default;
  SharedVector(std::vector<T> items) : items_(std::make_shared<std::vector<T>>(std::move(items))) {}
  SharedVector(std::initializer_list<T> items) : items_(std::make_shared<std::vector<T>>(items)) {}
  SharedVector& operator=(std::vector<T> items) {
    items_ = std::make_shared<std::vector<T>>(std::move(items));
    return *this;
  }
  SharedVector& operator=(std::initializer_list<T> items) { return *this = std::vector<T>(items); }

  const std::vector<T>& get() const { return items_ ? *items_ : Empty(); }
  operator const std::vector<T>&() const { return get(); }

  const_iterator begin() const { return get().begin(); }
  const_iterator end() const { return get().end(); }
  size_type size() const { return items_ ? items_->size() : 0; }
  bool empty() const { return size() == 0; }
  const T& operator[](size_type i) const { return (*items_)[i]; }
  const T& front() const { return items_->front(); }
  const T& back() const { return items_->back(); }

  // This copy's own array, to change: copied first when shared.
  std::vector<T>& Edit() {
    if (!items_) {
      items_ = std::make_shared<std::vector<T>>();
    } else if (items_.use_count() != 1) {
      items_ = std::make_shared<std::vector<T>>(*items_);
    } else {
      // Sole owner: another copy's release of the array (a decrement with
      // release order, read here relaxed) happens before what follows.
      std::atomic_thread_fence(std::memory_order_acquire);
    }
    return *items_;
  }
  void clear() { items_.reset(); }  // this copy only
  void push_back(T item) { Edit().push_back(std::move(item)); }
  template <class... Args>
  T& emplace_back(Args&&... args) {
    return Edit().emplace_back(std::forward<Args>(args)...);
  }

  // Whether both read the same array (a copy not edited since).
  bool SharesWith(const SharedVector& other) const { return items_ && items_ == other.items_; }

 private:
  static const std::vector<T>& Empty() {
    static const std::vector<T> empty;
    return empty;
  }
  std::shared_ptr<std::vector<T>> items_;
};

}  // namespace optrace

// A fresh scratch directory for the files a test writes, removed with everything in it by the
// destructor.
#pragma once

#include <string>
#include <string_view>

namespace rastrace::event::testing {

class TempDir {
 public:
  // Under the build tree, a real disk (/tmp may be a tmpfs, without O_DIRECT); throws
  // std::runtime_error when it cannot be made.
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string File(std::string_view name) const { return path_ + "/" + std::string(name); }
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

// Whether files in `dir` can be written with O_DIRECT (not on a tmpfs, which DirectFile refuses).
bool SupportsDirectIo(const std::string& dir);

}  // namespace rastrace::event::testing

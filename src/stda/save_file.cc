// The TRACEFMT unformatted save file: a 0x1A-byte header, then the STDA image.
#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "common/byte_order.h"
#include "stda/stda.h"

namespace rastrace::stda {

std::vector<uint8_t> MakeSaveFile(std::span<const uint8_t> stda, const DateTime& d) {
  std::vector<uint8_t> out(kSaveHeaderSize + stda.size());
  const auto le = ByteOrder::kLittle;
  Store<uint32_t>(&out[0], static_cast<uint32_t>(stda.size()), le);
  out[4] = d.hours;
  out[5] = d.minutes;
  out[6] = d.seconds;
  out[7] = d.hundredths;
  out[8] = d.day;
  out[9] = d.month;
  Store<uint16_t>(&out[10], d.year, le);
  Store<uint16_t>(&out[12], static_cast<uint16_t>(d.timezone), le);
  out[14] = d.weekday;
  std::memcpy(&out[0x0F], kCheckKey, sizeof kCheckKey);
  if (!stda.empty()) std::memcpy(&out[kSaveHeaderSize], stda.data(), stda.size());
  return out;
}

Result<void> WriteSaveFile(const std::string& path, std::span<const uint8_t> stda) {
  const std::vector<uint8_t> bytes = MakeSaveFile(stda, NowDateTime());
  // Trace data: readable by its owner only, and never written through a symlink someone else
  // planted. A save file replaces an older one of the same name, as TRACEFMT's did.
  const int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) {
    return MakeError("{}: cannot create the save file: {}", path,
                     errno == ELOOP ? "it is a symlink" : std::strerror(errno));
  }
  size_t done = 0;
  while (done < bytes.size()) {
    const ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      const int err = errno;
      close(fd);
      return MakeError("{}: write failed: {}", path, std::strerror(err));
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) return MakeError("{}: write failed: {}", path, std::strerror(errno));
  return Ok();
}

SaveFile ReadSaveFile(std::span<const uint8_t> file) {
  SaveFile s;
  if (file.size() < kSaveHeaderSize) {
    s.contents.problems.push_back(
        {0, fmt::format("the file is {} bytes, shorter than the {}-byte save-file header",
                        file.size(), kSaveHeaderSize)});
    return s;
  }
  const auto le = ByteOrder::kLittle;
  s.stda_length = Load32(&file[0], le);
  s.saved.hours = file[4];
  s.saved.minutes = file[5];
  s.saved.seconds = file[6];
  s.saved.hundredths = file[7];
  s.saved.day = file[8];
  s.saved.month = file[9];
  s.saved.year = Load16(&file[10], le);
  s.saved.timezone = static_cast<int16_t>(Load16(&file[12], le));
  s.saved.weekday = file[14];
  std::memcpy(s.check_key.data(), &file[0x0F], s.check_key.size());
  std::span<const uint8_t> stda = file.subspan(kSaveHeaderSize);
  std::optional<Problem> length_problem;
  if (s.stda_length != stda.size()) {
    length_problem = Problem{
        0, fmt::format("the STDA length {} disagrees with the file: {} bytes follow the header",
                       s.stda_length, stda.size())};
    if (s.stda_length < stda.size()) stda = stda.first(s.stda_length);
  }
  s.contents = ReadStda(stda, kSaveHeaderSize);
  if (length_problem) s.contents.problems.insert(s.contents.problems.begin(), *length_problem);
  return s;
}

}  // namespace rastrace::stda

#include "reporter/base/valid_text_buffer.h"

#include <algorithm>
#include <utility>

#include "reporter/base/valid_utf8.h"

namespace vprof::reporter {
namespace {

// How many bytes a sequence led by `lead` claims: 1 for ASCII, 2 to 4 for a
// lead byte, 0 for a continuation byte or one that leads nothing valid.
size_t ClaimedLength(unsigned char lead) {
  if (lead < 0x80) return 1;
  if (lead >= 0xC2 && lead <= 0xDF) return 2;
  if (lead >= 0xE0 && lead <= 0xEF) return 3;
  if (lead >= 0xF0 && lead <= 0xF4) return 4;
  return 0;
}

bool IsContinuation(unsigned char byte) { return (byte & 0xC0) == 0x80; }

// Where `bytes` may be cut so that repairing each side apart gives what
// repairing them together would: before a lead byte whose sequence the end
// leaves unfinished, else at the end. A lead byte ends whatever sequence came
// before it, so the repair starts afresh there either way.
size_t SafeCut(std::string_view bytes) {
  const size_t end = bytes.size();
  for (size_t back = 1; back <= 4 && back <= end; ++back) {
    const auto byte = static_cast<unsigned char>(bytes[end - back]);
    if (IsContinuation(byte)) continue;
    return ClaimedLength(byte) > back ? end - back : end;
  }
  return end;
}

}  // namespace

ValidTextBuffer::ValidTextBuffer(Sink sink, bool show_controls, size_t piece_bytes)
    : sink_(std::move(sink)), show_controls_(show_controls), piece_bytes_(piece_bytes) {
  pending_.reserve(piece_bytes_ + 4);
}

ValidTextBuffer::int_type ValidTextBuffer::overflow(int_type c) {
  if (traits_type::eq_int_type(c, traits_type::eof())) return traits_type::not_eof(c);
  pending_ += traits_type::to_char_type(c);
  if (pending_.size() >= piece_bytes_) Pass(false);
  return ok_ ? c : traits_type::eof();
}

std::streamsize ValidTextBuffer::xsputn(const char* s, std::streamsize n) {
  std::string_view rest(s, static_cast<size_t>(n));
  while (!rest.empty() && ok_) {
    const size_t room = piece_bytes_ > pending_.size() ? piece_bytes_ - pending_.size() : 0;
    const size_t take = std::min(rest.size(), std::max<size_t>(room, 1));
    pending_.append(rest.substr(0, take));
    rest.remove_prefix(take);
    if (pending_.size() >= piece_bytes_) Pass(false);
  }
  return ok_ ? n : 0;
}

void ValidTextBuffer::Pass(bool final) {
  if (!ok_) return;
  const size_t cut = final ? pending_.size() : SafeCut(pending_);
  if (cut == 0) return;
  const std::string_view piece(pending_.data(), cut);
  const std::string valid = ValidUtf8(piece);
  ok_ = sink_(show_controls_ ? ShowControlCharacters(valid, LineBreaks::kKeep) : valid);
  pending_.erase(0, cut);
}

bool ValidTextBuffer::Finish() {
  Pass(true);
  return ok_;
}

}  // namespace vprof::reporter

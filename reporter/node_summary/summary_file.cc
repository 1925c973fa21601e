#include "reporter/node_summary/summary_file.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

#include "reporter/base/safe_file.h"

namespace vprof::reporter {

using vprof::summary::SummaryPacket;

std::vector<std::string> ListSummaryFiles(const std::string& directory) {
  std::vector<std::string> files;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(directory, error)) {
    if (entry.path().extension() == kSummaryExtension) files.push_back(entry.path().string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

void SummaryFileWriter::Write(const SummaryPacket& packet) {
  google::protobuf::io::StringOutputStream out(&bytes_);
  google::protobuf::util::SerializeDelimitedToZeroCopyStream(packet, &out);
  ++packets_;
}

bool SummaryFileWriter::Finish() {
  SummaryPacket end;
  end.mutable_end()->set_packets(packets_);
  Write(end);
  return WriteFilePrivately(path_, bytes_, &error_);
}

SummaryFileReader::SummaryFileReader(const std::string& path) {
  // A FIFO or a link to a device under a summary's name would hang the merge
  // or feed it for ever: only a regular file is read.
  std::string refusal;
  fd_ = OpenRegularFile(path, &refusal);
  if (fd_ < 0) {
    problem_ = refusal.empty() ? "cannot open: " + std::string(std::strerror(errno))
                               : "not read: " + refusal;
    return;
  }
  stream_ = std::make_unique<google::protobuf::io::FileInputStream>(fd_);
}

SummaryFileReader::~SummaryFileReader() {
  stream_.reset();
  if (fd_ >= 0) ::close(fd_);
}

bool SummaryFileReader::Next(SummaryPacket* packet) {
  if (!stream_) return false;
  bool clean_eof = false;
  packet->Clear();  // parsing merges into what the message holds
  if (!google::protobuf::util::ParseDelimitedFromZeroCopyStream(packet, stream_.get(),
                                                                &clean_eof)) {
    problem_ = clean_eof ? "cut: no End packet after packet " + std::to_string(packets_)
                         : "corrupt or cut packet after packet " + std::to_string(packets_);
    stream_.reset();
    return false;
  }
  if (packet->has_end()) {
    if (packet->end().packets() != packets_) {
      problem_ = "End counts " + std::to_string(packet->end().packets()) + " packets, " +
                 std::to_string(packets_) + " were read";
    }
    stream_.reset();
    return false;
  }
  ++packets_;
  return true;
}

}  // namespace vprof::reporter

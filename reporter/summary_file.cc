#include "reporter/summary_file.h"

#include <google/protobuf/io/zero_copy_stream_impl.h>
#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>

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

SummaryFileWriter::SummaryFileWriter(const std::string& path)
    : path_(path), out_(path, std::ios::binary | std::ios::trunc) {
  if (!out_) error_ = "cannot create " + path + ": " + std::strerror(errno);
}

void SummaryFileWriter::Write(const SummaryPacket& packet) {
  if (!error_.empty()) return;
  if (!google::protobuf::util::SerializeDelimitedToOstream(packet, &out_)) {
    error_ = "cannot write " + path_ + ": " + std::strerror(errno);
  }
  ++packets_;
}

bool SummaryFileWriter::Finish() {
  SummaryPacket end;
  end.mutable_end()->set_packets(packets_);
  Write(end);
  if (error_.empty()) {
    out_.close();
    if (!out_) error_ = "cannot write " + path_ + ": " + std::strerror(errno);
  }
  return error_.empty();
}

SummaryFileReader::SummaryFileReader(const std::string& path) : in_(path, std::ios::binary) {
  if (!in_) {
    problem_ = "cannot open: " + std::string(std::strerror(errno));
    return;
  }
  stream_ = std::make_unique<google::protobuf::io::IstreamInputStream>(&in_);
}

SummaryFileReader::~SummaryFileReader() = default;

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

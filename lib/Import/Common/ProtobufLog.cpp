//===- ProtobufLog.cpp - libprotobuf's log lines as kiln warnings ---------===//
//
// libprotobuf reports some problems (invalid UTF-8 in a string field, a
// message past its size limit) by logging before the parse call returns
// false; by default those appear on stderr as raw "[libprotobuf ERROR
// file.cc:123] ..." lines ahead of kiln's own error. They are shown as kiln
// warnings instead, since the error that follows says what failed.
//
//===----------------------------------------------------------------------===//
#include "kiln/Import/Import.h"
#include "kiln/Support/Diagnostics.h"

#include <google/protobuf/stubs/logging.h>

#include <cstdio>

namespace kiln::import {

namespace {
void logToKiln(google::protobuf::LogLevel level, const char *, int,
               const std::string &message) {
  if (level < google::protobuf::LOGLEVEL_WARNING)
    return;
  std::fprintf(stderr, "%s\n",
               formatWarning("protobuf: " + message).c_str());
}
} // namespace

void routeProtobufLogs() { google::protobuf::SetLogHandler(&logToKiln); }

} // namespace kiln::import

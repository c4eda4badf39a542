// Input files are read whole, within a bound, and only from what can be read whole: a
// FIFO is refused before it could block (unless pipes are asked for), a device before it
// could fill memory.
#include "base/input_file.h"

#include <fcntl.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <fstream>
#include <string>
#include <thread>

namespace topoplace {
namespace {

using ::testing::HasSubstr;

std::string Path(const std::string& name) { return ::testing::TempDir() + "/" + name; }

TEST(InputFile, AFileIsReadWholeWithinItsBound) {
  const std::string file = Path("input-file-small");
  std::ofstream(file) << "0123456789";
  EXPECT_EQ(*ReadInputFile(file, 10), "0123456789");
  absl::StatusOr<std::string> over = ReadInputFile(file, 9, "trace file");
  EXPECT_EQ(over.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(over.status().message()),
              HasSubstr("trace file '" + file + "' is larger than the 9 bytes it may be"));
  EXPECT_EQ(ReadInputFile(Path("no-such-input"), 10).status().code(), absl::StatusCode::kNotFound);
}

TEST(InputFile, DevicesDirectoriesAndFifosAreRefusedBeforeReading) {
  for (const std::string& path : {std::string("/dev/zero"), ::testing::TempDir()}) {
    absl::StatusOr<std::string> read = ReadInputFile(path, 1 << 20, "fabric file");
    EXPECT_EQ(read.status().code(), absl::StatusCode::kInvalidArgument) << path;
    EXPECT_THAT(std::string(read.status().message()), HasSubstr("is not a regular file"));
  }
  const std::string fifo = Path("input-file-fifo");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  // No writer: opening it would block for ever.
  EXPECT_EQ(ReadInputFile(fifo, 1 << 20).status().code(), absl::StatusCode::kInvalidArgument);
  unlink(fifo.c_str());
}

TEST(InputFile, APipeIsReadWhenPipesAreAskedFor) {
  const std::string fifo = Path("input-file-pipe");
  unlink(fifo.c_str());
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::thread writer([&] {
    const int fd = open(fifo.c_str(), O_WRONLY);
    ASSERT_GE(fd, 0);
    EXPECT_EQ(write(fd, "lldp", 4), 4);
    close(fd);
  });
  absl::StatusOr<std::string> read = ReadInputFile(fifo, 1 << 20, "file", InputKind::kFileOrPipe);
  writer.join();
  ASSERT_TRUE(read.ok()) << read.status();
  EXPECT_EQ(*read, "lldp");
  unlink(fifo.c_str());
}

}  // namespace
}  // namespace topoplace

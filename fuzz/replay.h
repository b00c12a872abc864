// Hooks between the fuzz targets and the standalone replay driver (replay_main.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

extern "C" {
// The libFuzzer entry points every target defines (LLVMFuzzerInitialize is optional).
int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);
int LLVMFuzzerInitialize(int* argc, char*** argv) __attribute__((weak));
// A target may replay text files of its own format (a regression `.case` file with its
// `# expect <version>: ...` lines) instead of raw bytes. Returns 0 when every expectation
// holds, 1 otherwise (after printing what differed). Only the replay driver calls it.
int ChunkproofReplayCaseFile(const char* path, const std::uint8_t* data, std::size_t size) __attribute__((weak));
}

// The CRC-32C instruction of the processor (SSE 4.2 on x86-64, the CRC extension on AArch64),
// for StrataStorage's CRC32C (Sources/StrataStorage/Format/CRC32C.swift), which falls back to
// its portable tables when the processor has none.
#ifndef STRATA_CRC32C_H
#define STRATA_CRC32C_H

#include <stddef.h>
#include <stdint.h>

/// 1 when strata_crc32c_update may be called on this processor, else 0. Thread-safe.
int strata_crc32c_hardware_available(void);

/// The CRC-32C register `crc` (not inverted: the caller applies the initial and final
/// inversions) advanced over `count` bytes at `bytes`, with the processor's CRC-32C
/// instruction. Call only when strata_crc32c_hardware_available() returned 1. Thread-safe.
uint32_t strata_crc32c_update(uint32_t crc, const void *bytes, size_t count);

#endif

// Hardware CRC-32C (see include/strata_crc32c.h). The register is advanced eight bytes per
// instruction; bytes before the first 8-byte boundary and after the last are taken one at a time.
#include "strata_crc32c.h"

#include <string.h>

#if defined(__x86_64__)

__attribute__((target("sse4.2")))
uint32_t strata_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    uint64_t register64 = crc;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        register64 = __builtin_ia32_crc32di(register64, word);
        p += 8;
        count -= 8;
    }
    uint32_t register32 = (uint32_t)register64;
    while (count > 0) {
        register32 = __builtin_ia32_crc32qi(register32, *p);
        p += 1;
        count -= 1;
    }
    return register32;
}

int strata_crc32c_hardware_available(void) {
    __builtin_cpu_init();
    return __builtin_cpu_supports("sse4.2") ? 1 : 0;
}

#elif defined(__aarch64__)

#include <sys/auxv.h>
#ifndef HWCAP_CRC32
#define HWCAP_CRC32 (1 << 7)
#endif

__attribute__((target("crc")))
uint32_t strata_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    const unsigned char *p = bytes;
    while (count >= 8) {
        uint64_t word;
        memcpy(&word, p, 8);
        crc = __builtin_arm_crc32cd(crc, word);
        p += 8;
        count -= 8;
    }
    while (count > 0) {
        crc = __builtin_arm_crc32cb(crc, *p);
        p += 1;
        count -= 1;
    }
    return crc;
}

int strata_crc32c_hardware_available(void) {
    return (getauxval(AT_HWCAP) & HWCAP_CRC32) ? 1 : 0;
}

#else

uint32_t strata_crc32c_update(uint32_t crc, const void *bytes, size_t count) {
    (void)bytes;
    (void)count;
    return crc;
}

int strata_crc32c_hardware_available(void) { return 0; }

#endif

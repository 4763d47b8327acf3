// glibc's malloc statistics (malloc.h is not part of Swift's Glibc module).
#ifndef STRATA_C_MALLOC_STATS_H
#define STRATA_C_MALLOC_STATS_H

#include <stddef.h>

/// Bytes malloc has handed out and not taken back (mallinfo2: arena + mmapped chunks), or 0
/// where glibc's mallinfo2 is unavailable.
size_t strata_malloc_in_use(void);

/// Gives free heap memory back to the system (malloc_trim(0)); a no-op off glibc.
void strata_malloc_trim(void);

#endif

#include <stdlib.h>
#include "CMallocStats.h"

#if defined(__GLIBC__)
#include <malloc.h>
#endif

size_t strata_malloc_in_use(void) {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 33))
    struct mallinfo2 info = mallinfo2();
    return info.uordblks + info.hblkhd;
#else
    return 0;
#endif
}

void strata_malloc_trim(void) {
#if defined(__GLIBC__)
    malloc_trim(0);
#endif
}

#ifndef STRATA_CZSTD_SHIM_H
#define STRATA_CZSTD_SHIM_H
#define ZSTD_STATIC_LINKING_ONLY
#include <zstd.h>
#include <zdict.h>
#endif

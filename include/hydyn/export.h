// Symbol visibility: only declarations marked HY_API are exported from the shared library.
#ifndef HYDYN_EXPORT_H_
#define HYDYN_EXPORT_H_

#if defined(HYDYN_BUILDING) && defined(__GNUC__)
#define HY_API __attribute__((visibility("default")))
#else
#define HY_API
#endif

#endif  // HYDYN_EXPORT_H_

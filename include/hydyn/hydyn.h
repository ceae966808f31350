// hydyn: simulation of hydraulically actuated multibody systems. The one header to include.
#ifndef HYDYN_HYDYN_H_
#define HYDYN_HYDYN_H_

#define HY_VERSION_MAJOR 0
#define HY_VERSION_MINOR 1
#define HY_VERSION_PATCH 0
#define HY_VERSION_STRING "0.1.0"

#include "hydyn/export.h"
#include "hydyn/channels.h"
#include "hydyn/friction.h"
#include "hydyn/model.h"
#include "hydyn/names.h"
#include "hydyn/sim.h"
#include "hydyn/types.h"

#endif  // HYDYN_HYDYN_H_

// Random numbers, inertias and planar trees, shared by the tests of src/mech.
#ifndef HYDYN_TESTS_MECH_PLANAR_TREE_H_
#define HYDYN_TESTS_MECH_PLANAR_TREE_H_

#include "hydyn/hydyn.h"

// A number in [lo, hi) from a linear congruential generator; *state advances.
double random_uniform(unsigned* state, double lo, double hi);
// Components in [-scale, scale).
void random_vec(unsigned* state, double v[3], double scale);
// A random unit vector.
void random_unit(unsigned* state, double v[3]);
// The inertia tensor (kg m^2) of a uniform box of `mass` with random sides in [0.1, 1) m, turned
// by a random rotation: physical, with products of inertia everywhere.
void random_box_inertia(unsigned* state, double mass, double inertia[9]);
// A random unit vector well away from every coordinate axis (each component at least 0.3).
void random_tilted_normal(unsigned* state, double n[3]);

// A random branching tree of nbody bodies moving in the plane with the unit normal n: joints are
// revolute (about +-n) or prismatic (along a random in-plane direction), and every joint's child
// axis is random, so the body frames are turned away from the plane in every way (and some
// revolute joints have their child point on the body's normal through its origin). Inertias are
// full tensors in those frames. Loads (one scaled by a signal), markers (one on ground), gravity
// and the centres of mass all have components along n, and two force elements act between
// markers (one on ground). The compiler takes the plane normal from joint 0, which turns about
// +n or -n (by the seed).
hy_model* random_planar_tree(unsigned seed, int nbody, const double n[3]);
// The same with body i hanging from body i - 1 (body 0 from ground): a chain, which the planar
// dynamics and constraints take a path of their own for (hy_mech_work.chain).
hy_model* random_planar_chain(unsigned seed, int nbody, const double n[3]);

#endif  // HYDYN_TESTS_MECH_PLANAR_TREE_H_

/*
 * anchorkit_solvers.h — AnchorKit's numerical solvers, apart from the thin OpenCV wrappers of
 * anchorkit_cv.h (whose rules apply here too), one file per solver:
 *  - anchorkit_world.h: two-view initialisation, triangulation, PnP, bundle adjustment, one
 *    pose through several views (visual odometry);
 *  - anchorkit_alignment.h: a planar reference aligned to a frame (image tracking);
 *  - anchorkit_sweep.h: plane sweep of two views (plane detection);
 *  - anchorkit_target_pose.h: the poses of markers and image targets from their pixels.
 * Their tests: Tests/SolverTests (C++). The marker refiners stay beside the marker detector in
 * AnchorKitCV: they refine the detector's own candidates, inside one detection call.
 */
#ifndef ANCHORKIT_SOLVERS_H
#define ANCHORKIT_SOLVERS_H

#include "anchorkit_world.h"
#include "anchorkit_alignment.h"
#include "anchorkit_sweep.h"
#include "anchorkit_target_pose.h"

#endif

// world_geometry.hpp — what the world solvers share (triangulation.cpp, two_view.cpp, pnp.cpp,
// bundle_adjustment.cpp): the two-view point model, triangulation and its classification, and
// ORB-SLAM's thresholds. Private to AnchorKitSolvers.
#ifndef ANCHORKIT_CV_WORLD_GEOMETRY_HPP
#define ANCHORKIT_CV_WORLD_GEOMETRY_HPP

#include "../AnchorKitCV/internal.hpp"

#include "anchorkit_world.h"
#include "rigid.hpp"

#include <opencv2/calib3d.hpp>

#include <Eigen/Dense>

#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace akcv {
namespace world {

constexpr double kRadToDeg = 180.0 / CV_PI;
const double kNaN = std::numeric_limits<double>::quiet_NaN();

// Rays closer than this (ORB-SLAM's cos parallax > 0.99998) meet about as well behind a camera
// as in front of it: the sign of their depth says nothing about a pose hypothesis.
constexpr double kSignlessParallaxDegrees = 0.36;

// ORB-SLAM's chi-square thresholds (95 %): 2 degrees of freedom for a transfer error, 1 for a
// distance to an epipolar line. The fundamental score adds the 2-DOF value so that both models
// score an exact inlier equally.
constexpr double kChi2TwoDof = 5.991;
constexpr double kChi2OneDof = 3.841;

// The pinhole camera matrix K.
inline cv::Matx33d camera_matrix(const ak_pinhole &c) { return cv::Matx33d(c.fx, 0, c.cx, 0, c.fy, c.cy, 0, 0, 1); }

inline double median(std::vector<double> v) {
    if (v.empty()) return 0;
    const size_t mid = v.size() / 2;
    std::nth_element(v.begin(), v.begin() + mid, v.end());
    const double hi = v[mid];
    if (v.size() % 2) return hi;
    return 0.5 * (hi + *std::max_element(v.begin(), v.begin() + mid));
}

// ---------------------------------------------------------------- triangulation

// Two views of the same points: pixels and normalised coordinates ((x - cx) / fx, (y - cy) / fy).
struct Views {
    std::vector<Vec2> px1, px2, n1, n2;

    Views(const ak_pinhole &cam, const float *p1, const float *p2, int count) {
        px1.resize(count), px2.resize(count), n1.resize(count), n2.resize(count);
        for (int i = 0; i < count; ++i) {
            px1[i] = Vec2(p1[2 * i], p1[2 * i + 1]);
            px2[i] = Vec2(p2[2 * i], p2[2 * i + 1]);
            n1[i] = Vec2((px1[i].x() - cam.cx) / cam.fx, (px1[i].y() - cam.cy) / cam.fy);
            n2[i] = Vec2((px2[i].x() - cam.cx) / cam.fx, (px2[i].y() - cam.cy) / cam.fy);
        }
    }
};

struct Triangulated {
    bool finite = false;     // false: the rays meet at no finite point
    Vec3 X = Vec3::Zero();   // world
    double depth1 = 0, depth2 = 0;
    double error1 = kNaN, error2 = kNaN;  // px
    double parallax = 0;     // degrees between the viewing rays
};

inline double reprojection_error(const ak_pinhole &cam, const Vec3 &Xc, const Vec2 &px) {
    // A point behind the camera still has a projective image (its mirror's): that is what the
    // two-view test compares for rays too close to tell front from back.
    if (Xc.z() == 0) return std::numeric_limits<double>::infinity();
    const Vec2 p(cam.fx * Xc.x() / Xc.z() + cam.cx, cam.fy * Xc.y() / Xc.z() + cam.cy);
    return (p - px).norm();
}

// Linear (DLT) triangulation of the points `which` in normalised coordinates, where it is
// well conditioned: OpenCV's triangulatePoints (an SVD per point, in the optimised library).
inline void triangulate(const ak_pinhole &cam, const Pose &c1, const Pose &c2, const Views &v, const std::vector<int> &which,
                 std::vector<Triangulated> &out) {
    const int n = static_cast<int>(which.size());
    out.assign(n, Triangulated{});
    if (n == 0) return;
    cv::Mat P1(3, 4, CV_64F), P2(3, 4, CV_64F);
    for (int r = 0; r < 3; ++r) {
        for (int c = 0; c < 3; ++c) P1.at<double>(r, c) = c1.R(r, c), P2.at<double>(r, c) = c2.R(r, c);
        P1.at<double>(r, 3) = c1.t[r], P2.at<double>(r, 3) = c2.t[r];
    }
    cv::Mat a(2, n, CV_64F), b(2, n, CV_64F);
    for (int k = 0; k < n; ++k) {
        const int i = which[k];
        a.at<double>(0, k) = v.n1[i].x(), a.at<double>(1, k) = v.n1[i].y();
        b.at<double>(0, k) = v.n2[i].x(), b.at<double>(1, k) = v.n2[i].y();
    }
    cv::Mat X4, X64;
    cv::triangulatePoints(P1, P2, a, b, X4);
    X4.convertTo(X64, CV_64F);
    if (X64.rows != 4 || X64.cols != n) CV_Error(cv::Error::StsInternal, "triangulatePoints returned an unexpected shape");

    const Mat3 R1t = c1.R.transpose(), R2t = c2.R.transpose();
    const Vec3 centre1 = -(R1t * c1.t), centre2 = -(R2t * c2.t);
    for (int k = 0; k < n; ++k) {
        const int i = which[k];
        Triangulated &t = out[k];
        // Without a finite point, the angle between the viewing rays themselves (near 0 for the
        // parallel rays that put a point at infinity).
        const Vec3 b1 = R1t * Vec3(v.n1[i].x(), v.n1[i].y(), 1), b2 = R2t * Vec3(v.n2[i].x(), v.n2[i].y(), 1);
        t.parallax = std::atan2(b1.cross(b2).norm(), b1.dot(b2)) * kRadToDeg;
        const Eigen::Vector4d h(X64.at<double>(0, k), X64.at<double>(1, k), X64.at<double>(2, k), X64.at<double>(3, k));
        if (!h.allFinite() || !(std::abs(h[3]) > 1e-12 * h.head<3>().norm())) continue;
        t.X = h.head<3>() / h[3];
        if (!t.X.allFinite()) continue;
        t.finite = true;
        // The angle the point subtends between the camera centres (ORB-SLAM's parallax): the same
        // as the rays' where they meet, but 0, not the rotation angle, for cameras that share a
        // centre.
        const Vec3 a1 = t.X - centre1, a2 = t.X - centre2;
        t.parallax = std::atan2(a1.cross(a2).norm(), a1.dot(a2)) * kRadToDeg;
        const Vec3 x1 = c1.R * t.X + c1.t, x2 = c2.R * t.X + c2.t;
        t.depth1 = x1.z(), t.depth2 = x2.z();
        t.error1 = reprojection_error(cam, x1, v.px1[i]);
        t.error2 = reprojection_error(cam, x2, v.px2[i]);
    }
}

inline int classify(const Triangulated &t, double max_error, double min_parallax) {
    if (!t.finite) return AK_POINT_DEGENERATE;
    if (!(t.depth1 > 0 && t.depth2 > 0)) return AK_POINT_BEHIND;
    if (!(t.error1 <= max_error && t.error2 <= max_error)) return AK_POINT_REPROJECTION;
    if (!(t.parallax >= min_parallax)) return AK_POINT_LOW_PARALLAX;
    return AK_POINT_GOOD;
}

// ORB-SLAM's test of a pose hypothesis: a point supports it when it reprojects well in both
// views and, unless its rays are nearly parallel, lies in front of both cameras.
inline bool consistent(const Triangulated &t, double max_error) {
    if (!t.finite || !(t.error1 <= max_error && t.error2 <= max_error)) return false;
    return t.parallax < kSignlessParallaxDegrees || (t.depth1 > 0 && t.depth2 > 0);
}

}  // namespace world
}  // namespace akcv

#endif

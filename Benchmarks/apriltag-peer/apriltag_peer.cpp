// apriltag_peer: run Debian's AprilTag 3 library (tag36h11) over a recorded
// sequence's PNG frames and write an anchor stream in AnchorKit's schema
// (/work/shared/FORMATS.md), so `anchorkit score` can compare it with ours.
//
// usage: apriltag_peer --frames DIR/frames/%06d.png --count N --fps F
//                      --fx FX --fy FY --cx CX --cy CY
//                      --tag ID:SIZE [--tag ID:SIZE ...]
//                      [--decimate 1.0] [--threads 1] [--refine-edges 1] -o out.jsonl
//
// Conventions converted here (verified against groundtruth.jsonl; see README.md):
//  * OpenCV's DICT_APRILTAG_36h11 marker <id> is apriltag's tag36h11 code <id>
//    rotated by 180 degrees (checked for all 587 ids), so ids agree but the
//    canonical "top" differs.
//  * corners: apriltag's det->p[i] is H * (-1,+1), (+1,+1), (+1,-1), (-1,-1) in
//    its tag frame (x right, y down of apriltag's own tag image). In OpenCV's
//    orientation that is p[0] = top-right, p[1] = top-left, p[2] = bottom-left,
//    p[3] = bottom-right; ours (OpenCV's marker order) are TL, TR, BR, BL
//    =>  ours = p[1], p[0], p[3], p[2]  (ours[k] = p[k ^ 1]).
//  * pixels: apriltag's corner coordinates put pixel centres at (i + 0.5), ours
//    (OpenCV's) at integers: measured bias against the truth was +0.47 px in x
//    and y. So corners are reported minus 0.5, and the pose is estimated with the
//    principal point in apriltag's convention, (cx + 0.5, cy + 0.5).
//  * pose: estimate_tag_pose returns [R|t] = cv_camera_from_tag, apriltag tag
//    frame x right, y down, z into the printed face (of apriltag's image, i.e.
//    x toward OpenCV's LEFT edge, y toward OpenCV's TOP edge), camera x right,
//    y down, z forward. Ours: camera +y up, looking along -z (diag(1,-1,-1) of
//    OpenCV's); anchor +x toward the right edge, +y out of the face, +z toward
//    the bottom edge. So  T_ours = D * [R|t] * M,  D = diag(1,-1,-1),
//    M = tag_from_anchor with columns (-1,0,0), (0,0,-1), (0,-1,0).
#include <apriltag/apriltag.h>
#include <apriltag/apriltag_pose.h>
#include <apriltag/tag36h11.h>
#include <apriltag/common/matd.h>

#include <opencv2/core.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

static void usage(const char *argv0) {
    std::fprintf(stderr,
        "usage: %s --frames PATTERN --count N --fps F --fx FX --fy FY --cx CX --cy CY\n"
        "          --tag ID:SIZE [--tag ID:SIZE ...] [--decimate D] [--threads T]\n"
        "          [--refine-edges 0|1] -o OUT.jsonl\n", argv0);
    std::exit(2);
}

int main(int argc, char **argv) {
    std::string pattern, out_path;
    int count = -1, nthreads = 1, refine_edges = 1;
    double fps = 30, fx = 0, fy = 0, cx = 0, cy = 0, decimate = 1.0;
    std::map<int, double> sizes;  // expected ids and their black-square sides (m)
    for (int i = 1; i < argc; i++) {
        std::string a = argv[i];
        auto next = [&]() -> const char * { if (i + 1 >= argc) usage(argv[0]); return argv[++i]; };
        if (a == "--frames") pattern = next();
        else if (a == "--count") count = std::atoi(next());
        else if (a == "--fps") fps = std::atof(next());
        else if (a == "--fx") fx = std::atof(next());
        else if (a == "--fy") fy = std::atof(next());
        else if (a == "--cx") cx = std::atof(next());
        else if (a == "--cy") cy = std::atof(next());
        else if (a == "--decimate") decimate = std::atof(next());
        else if (a == "--threads") nthreads = std::atoi(next());
        else if (a == "--refine-edges") refine_edges = std::atoi(next());
        else if (a == "--tag") {
            const char *s = next();
            const char *colon = std::strchr(s, ':');
            if (!colon) usage(argv[0]);
            sizes[std::atoi(s)] = std::atof(colon + 1);
        } else if (a == "-o" || a == "--output") out_path = next();
        else usage(argv[0]);
    }
    if (pattern.empty() || out_path.empty() || count < 0 || fx <= 0 || fy <= 0 || sizes.empty()) usage(argv[0]);

    FILE *out = std::fopen(out_path.c_str(), "w");
    if (!out) { std::perror(out_path.c_str()); return 1; }

    apriltag_family_t *family = tag36h11_create();
    apriltag_detector_t *detector = apriltag_detector_create();
    apriltag_detector_add_family(detector, family);  // default 2 bits of error correction
    detector->nthreads = nthreads;
    detector->quad_decimate = (float)decimate;
    detector->refine_edges = refine_edges != 0;

    // ours = D * [R|t] * M (see header comment)
    static const double M[3][3] = {{-1, 0, 0}, {0, 0, -1}, {0, -1, 0}};  // row-major; columns (-1,0,0),(0,0,-1),(0,-1,0)
    static const double D[3] = {1, -1, -1};

    long tracked = 0;
    for (int f = 0; f < count; f++) {
        char path[4096];
        std::snprintf(path, sizeof path, pattern.c_str(), f);
        cv::Mat img = cv::imread(path, cv::IMREAD_GRAYSCALE);
        if (img.empty()) { std::fprintf(stderr, "apriltag_peer: cannot read %s\n", path); return 1; }
        if (!img.isContinuous()) img = img.clone();
        image_u8_t im = {img.cols, img.rows, (int32_t)img.step[0], img.data};

        zarray_t *dets = apriltag_detector_detect(detector, &im);

        std::fprintf(out, "{\"frame\":%d,\"time\":%.9g,\"camera\":{\"transform\":[1,0,0,0,0,1,0,0,0,0,1,0,0,0,0,1],"
                          "\"tracking\":\"normal\"},\"anchors\":[", f, f / fps);
        // Only the ids the sequence expects. Several detections may share an id: several
        // printed copies (AprilTag 3 already merges overlapping detections of one tag). The
        // detector keeps nothing between frames, so copies are numbered per frame, left to
        // right (then top to bottom): instance 0 is marker/DICT_APRILTAG_36h11/<id>, instance
        // k > 0 is .../<id>/<k> with "instance": k (FORMATS.md). The scorer matches copies by
        // corner error whatever their numbers; a change of order counts as identity switches.
        std::map<int, std::vector<apriltag_detection_t *>> copies;
        for (int k = 0; k < zarray_size(dets); k++) {
            apriltag_detection_t *det;
            zarray_get(dets, k, &det);
            if (sizes.count(det->id)) copies[det->id].push_back(det);
        }
        bool first = true;
        for (auto &kv : copies) {
            std::sort(kv.second.begin(), kv.second.end(), [](const apriltag_detection_t *a, const apriltag_detection_t *b) {
                return a->c[0] != b->c[0] ? a->c[0] < b->c[0] : a->c[1] < b->c[1];
            });
            for (size_t instance = 0; instance < kv.second.size(); instance++) {
                apriltag_detection_t *det = kv.second[instance];
                double size = sizes[det->id];
                apriltag_detection_info_t info = {det, size, fx, fy, cx + 0.5, cy + 0.5};  // apriltag's pixel convention
                apriltag_pose_t pose;
                estimate_tag_pose(&info, &pose);

                double R[3][3], t[3];  // ours: camera(ARKit)_from_anchor
                for (int r = 0; r < 3; r++) {
                    for (int c = 0; c < 3; c++) {
                        double s = 0;
                        for (int k = 0; k < 3; k++) s += MATD_EL(pose.R, r, k) * M[k][c];
                        R[r][c] = D[r] * s;
                    }
                    t[r] = D[r] * MATD_EL(pose.t, r, 0);
                }
                // Debian's libapriltag.so exports only the detector/pose entry points
                // (matd_destroy is hidden); a matd_t is one calloc'd block (flexible
                // array member), which is all matd_destroy frees.
                std::free(pose.R);
                std::free(pose.t);

                char suffix[32] = "", instance_key[32] = "";
                if (instance > 0) {
                    std::snprintf(suffix, sizeof suffix, "/%zu", instance);
                    std::snprintf(instance_key, sizeof instance_key, "\"instance\":%zu,", instance);
                }
                std::fprintf(out, "%s{\"id\":\"marker/DICT_APRILTAG_36h11/%d%s\",\"type\":\"marker\",\"name\":\"%d\",%s"
                                  "\"tracked\":true,\"transform\":[", first ? "" : ",", det->id, suffix, det->id, instance_key);
                for (int c = 0; c < 4; c++)      // column-major
                    for (int r = 0; r < 4; r++) {
                        double v = c < 3 ? (r < 3 ? R[r][c] : 0.0) : (r < 3 ? t[r] : 1.0);
                        std::fprintf(out, "%s%.9g", (c == 0 && r == 0) ? "" : ",", v);
                    }
                std::fprintf(out, "],\"extent\":[%.9g,%.9g],\"corners\":[", size, size);
                for (int k = 0; k < 4; k++) {
                    const double *p = det->p[k ^ 1];  // TL,TR,BR,BL <- p[1],p[0],p[3],p[2]
                    std::fprintf(out, "%s[%.6f,%.6f]", k ? "," : "", p[0] - 0.5, p[1] - 0.5);  // to OpenCV pixel centres
                }
                std::fprintf(out, "]}");
                first = false;
                tracked++;
            }
        }
        std::fprintf(out, "]}\n");
        apriltag_detections_destroy(dets);
    }
    std::fclose(out);
    std::fprintf(stderr, "apriltag_peer: %d frames, %ld tracked observations (decimate %.1f, %d thread%s) -> %s\n",
                 count, tracked, decimate, nthreads, nthreads == 1 ? "" : "s", out_path.c_str());
    apriltag_detector_destroy(detector);
    tag36h11_destroy(family);
    return 0;
}

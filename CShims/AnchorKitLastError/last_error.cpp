// last_error.cpp — anchorkit_last_error.h: a fixed thread-local buffer.
#include "anchorkit_last_error.h"

#include <cstddef>
#include <cstdio>

namespace {

// A fixed buffer: recording an error never allocates, so it cannot throw inside a catch block.
constexpr size_t kMessageCapacity = 1024;
thread_local char t_message[kMessageCapacity] = "";

void flatten(char *s) noexcept {
    // One line: control characters (newlines from exception messages, paths, ...) become spaces,
    // runs of spaces collapse, trailing spaces go.
    char *out = s;
    bool space = false;
    for (const char *in = s; *in; ++in) {
        char c = *in;
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = ' ';
        if (c == ' ') {
            if (space || out == s) continue;
            space = true;
        } else {
            space = false;
        }
        *out++ = c;
    }
    while (out > s && out[-1] == ' ') --out;
    *out = '\0';
}

}  // namespace

extern "C" void ak_record_error(const char *fn, const char *fmt, va_list args) {
    int n = std::snprintf(t_message, kMessageCapacity, "%s: ", fn ? fn : "anchorkit");
    if (n < 0) n = 0;
    if (static_cast<size_t>(n) < kMessageCapacity) std::vsnprintf(t_message + n, kMessageCapacity - static_cast<size_t>(n), fmt, args);
    flatten(t_message);
}

extern "C" const char *ak_recorded_error(void) { return t_message; }

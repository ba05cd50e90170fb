// The validation memo (core/validate_cache.h) may skip work but never change a verdict:
// a call that repeats the layout of an accepted call, with addresses changed in every
// way that matters (misaligned, NULL, wrapping, overlapping an output, the in-place
// alias moved by an element), must get the status, the message and the untouched outputs
// that full validation gives. Each scenario runs twice, with the memo on (the default)
// and off (OPKIT_VALIDATION_MEMO=0, read at init), and the two runs must agree.
#include "opkit.h"

#include <catch2/catch.hpp>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <limits>
#include <regex>
#include <string>
#include <vector>

namespace {

opkit_dtype f32() { return {OPKIT_DTYPE_FLOAT, 32, 1}; }
opkit_dtype bf16() { return {OPKIT_DTYPE_BFLOAT, 16, 1}; }

// 64 floats of storage per buffer, so views can move around inside one buffer.
struct Buffers {
    std::vector<float> a = std::vector<float>(64), b = std::vector<float>(64), c = std::vector<float>(64);
    Buffers() {
        for (size_t i = 0; i < 64; ++i) {
            a[i] = 0.5f + 0.01f * float(i);
            b[i] = -0.25f + 0.02f * float(i);
            c[i] = 1.0f;
        }
    }
};

struct View {
    int64_t shape[2] = {2, 16};
    opkit_tensor t{};
    View(void* data, opkit_dtype d = f32()) {
        t.data = data;
        t.device = {OPKIT_DEVICE_CPU, 0};
        t.ndim = 2;
        t.dtype = d;
        t.shape = shape;
        t.strides = nullptr;
        t.byte_offset = 0;
    }
};

struct Outcome {
    opkit_status status;
    std::string message;
    std::vector<float> a, b, c;  // every buffer after the call
};

// A scenario: prime() makes a valid call (which the memo remembers), then the mutated
// call runs on views set up by `mutate`; returns what the second call did.
using Scenario = std::function<opkit_status(Buffers&)>;

// A message with its addresses blanked: the two runs allocate their buffers anew, so a
// message naming an address ("starts at address 0x...") differs in those digits only.
std::string without_addresses(const char* message) {
    static const std::regex address("0x[0-9a-fA-F]+");
    return std::regex_replace(std::string(message), address, "0x?");
}

Outcome run_scenario(const Scenario& s) {
    Buffers b;
    const opkit_status st = s(b);
    return {st, st == OPKIT_OK ? std::string() : without_addresses(opkit_last_error_message()), b.a, b.b, b.c};
}

std::vector<Outcome> run_all(const std::vector<std::pair<std::string, Scenario>>& scenarios, bool memo) {
    opkit_shutdown();
    if (memo)
        unsetenv("OPKIT_VALIDATION_MEMO");
    else
        setenv("OPKIT_VALIDATION_MEMO", "0", 1);
    REQUIRE(opkit_init(nullptr) == OPKIT_OK);
    std::vector<Outcome> out;
    for (const auto& s : scenarios) out.push_back(run_scenario(s.second));
    opkit_shutdown();
    unsetenv("OPKIT_VALIDATION_MEMO");
    return out;
}

// axpy(x, y): prime with x = a, y = b, then call with the views changed by `change`.
Scenario axpy_then(std::function<void(View& x, View& y, float& alpha, Buffers&)> change) {
    return [change](Buffers& b) {
        View x(b.a.data()), y(b.b.data());
        if (opkit_axpy(0.5f, &x.t, &y.t, nullptr) != OPKIT_OK) return OPKIT_ERROR_INTERNAL;
        float alpha = 0.5f;
        change(x, y, alpha, b);
        return opkit_axpy(alpha, &x.t, &y.t, nullptr);
    };
}

// rms_norm_forward(x, NULL, y, rstd): prime with y the identical view of x (the in-place
// call the op allows), then change the views.
Scenario rms_in_place_then(std::function<void(View& x, View& y, View& rstd, Buffers&)> change) {
    return [change](Buffers& b) {
        View x(b.a.data()), y(b.a.data()), rstd(b.c.data());
        rstd.t.ndim = 1;
        rstd.shape[0] = 2;
        if (opkit_rms_norm_forward(&x.t, nullptr, 1e-6f, 0.0f, &y.t, &rstd.t, nullptr) != OPKIT_OK)
            return OPKIT_ERROR_INTERNAL;
        change(x, y, rstd, b);
        return opkit_rms_norm_forward(&x.t, nullptr, 1e-6f, 0.0f, &y.t, &rstd.t, nullptr);
    };
}

// swiglu_backward(dy, a, b, da, db): prime with da over a and db over b (both in-place
// aliases the op allows; dy in buffer c), then change the views. Two outputs, so the
// memo's overlap pairs include one of two written tensors.
using SwigluChange = std::function<void(View& dy, View& a, View& b, View& da, View& db, Buffers&)>;
Scenario swiglu_bwd_in_place_then(SwigluChange change) {
    return [change](Buffers& bufs) {
        View dy(bufs.c.data()), a(bufs.a.data()), b(bufs.b.data()), da(bufs.a.data()), db(bufs.b.data());
        if (opkit_swiglu_backward(&dy.t, &a.t, &b.t, &da.t, &db.t, nullptr) != OPKIT_OK)
            return OPKIT_ERROR_INTERNAL;
        change(dy, a, b, da, db, bufs);
        return opkit_swiglu_backward(&dy.t, &a.t, &b.t, &da.t, &db.t, nullptr);
    };
}

// axpy on views with no element (shape [0, 16]): only byte_offset's bound applies to
// them, no address check.
Scenario empty_axpy_then(std::function<void(View& x, View& y)> change) {
    return [change](Buffers& b) {
        View x(b.a.data()), y(b.b.data());
        x.shape[0] = y.shape[0] = 0;
        if (opkit_axpy(0.5f, &x.t, &y.t, nullptr) != OPKIT_OK) return OPKIT_ERROR_INTERNAL;
        change(x, y);
        return opkit_axpy(0.5f, &x.t, &y.t, nullptr);
    };
}

}  // namespace

TEST_CASE("the validation memo gives every call the verdict full validation gives") {
    const uint64_t huge = uint64_t(std::numeric_limits<int64_t>::max());
    const std::vector<std::pair<std::string, Scenario>> scenarios = {
        {"axpy repeated on other buffers", axpy_then([](View& x, View& y, float&, Buffers& b) {
             x.t.data = b.c.data();
             y.t.data = b.a.data();
         })},
        {"axpy with y the identical view of x", axpy_then([](View& x, View& y, float&, Buffers&) {
             y.t.data = x.t.data;
         })},
        {"axpy with y one element past x", axpy_then([](View& x, View& y, float&, Buffers&) {
             y.t.data = static_cast<float*>(x.t.data) + 1;
         })},
        {"axpy with y ending inside x", axpy_then([](View& x, View& y, float&, Buffers& b) {
             x.t.data = b.a.data() + 16;
             y.t.data = b.a.data() + 8;
         })},
        {"axpy with x misaligned", axpy_then([](View& x, View&, float&, Buffers&) { x.t.byte_offset = 2; })},
        {"axpy with y misaligned", axpy_then([](View&, View& y, float&, Buffers&) { y.t.byte_offset = 6; })},
        {"axpy with x NULL data", axpy_then([](View& x, View&, float&, Buffers&) { x.t.data = nullptr; })},
        {"axpy with a byte_offset past 2^63", axpy_then([huge](View& x, View&, float&, Buffers&) {
             x.t.byte_offset = huge + 1;
         })},
        {"axpy with a byte_offset that overflows the byte size", axpy_then([huge](View& x, View&, float&, Buffers&) {
             x.t.byte_offset = huge - 64;
         })},
        {"axpy reaching past the address space", axpy_then([](View& x, View&, float&, Buffers&) {
             x.t.data = reinterpret_cast<void*>(uintptr_t(0) - 64);
         })},
        {"axpy with alpha NaN", axpy_then([](View&, View&, float& alpha, Buffers&) { alpha = std::nanf(""); })},
        {"axpy with another shape", axpy_then([](View& x, View&, float&, Buffers&) { x.shape[1] = 8; })},
        {"axpy with y in bf16", axpy_then([](View&, View& y, float&, Buffers&) { y.t.dtype = bf16(); })},
        {"axpy with a NULL shape", axpy_then([](View& x, View&, float&, Buffers&) { x.t.shape = nullptr; })},
        {"axpy with strides", axpy_then([](View& x, View&, float&, Buffers&) {
             static int64_t strides[2] = {32, 1};
             x.t.strides = strides;
         })},
        {"axpy with y strided over x's rows", axpy_then([](View& x, View& y, float&, Buffers&) {
             static int64_t strides[2] = {32, 1};
             x.t.strides = strides;
             y.t.strides = strides;
             y.t.data = static_cast<float*>(x.t.data) + 16;  // interleaved rows: disjoint elements
         })},
        {"rms_norm in place again, other buffer", rms_in_place_then([](View& x, View& y, View&, Buffers& b) {
             x.t.data = y.t.data = b.b.data();
         })},
        {"rms_norm with y one element past x", rms_in_place_then([](View& x, View& y, View&, Buffers&) {
             y.t.data = static_cast<float*>(x.t.data) + 1;
         })},
        {"rms_norm with y and x apart", rms_in_place_then([](View&, View& y, View&, Buffers& b) {
             y.t.data = b.b.data();
         })},
        {"rms_norm with rstd inside y", rms_in_place_then([](View&, View& y, View& rstd, Buffers&) {
             rstd.t.data = static_cast<float*>(y.t.data) + 4;
         })},
        {"rms_norm with rstd the identical start of x", rms_in_place_then([](View& x, View&, View& rstd, Buffers&) {
             rstd.t.data = x.t.data;
         })},
        {"rms_norm with a CUDA tensor", rms_in_place_then([](View&, View&, View& rstd, Buffers&) {
             rstd.t.device = {OPKIT_DEVICE_CUDA, 0};
         })},
        {"swiglu_backward in place again, other offsets", swiglu_bwd_in_place_then(
             [](View& dy, View& a, View& b, View& da, View& db, Buffers& bufs) {
                 dy.t.data = bufs.c.data() + 32;
                 a.t.data = da.t.data = bufs.a.data() + 32;
                 b.t.data = db.t.data = bufs.b.data() + 32;
             })},
        {"swiglu_backward with da and db both over dy", swiglu_bwd_in_place_then(
             [](View& dy, View&, View&, View& da, View& db, Buffers&) {
                 da.t.data = db.t.data = dy.t.data;
             })},
        {"swiglu_backward with da over dy, db still over b", swiglu_bwd_in_place_then(
             [](View& dy, View&, View&, View& da, View&, Buffers&) { da.t.data = dy.t.data; })},
        {"swiglu_backward with da over b", swiglu_bwd_in_place_then(
             [](View&, View& a, View& b, View& da, View&, Buffers& bufs) {
                 a.t.data = bufs.c.data() + 32;
                 da.t.data = b.t.data;
             })},
        {"swiglu_backward with db one element into da", swiglu_bwd_in_place_then(
             [](View&, View& a, View& b, View&, View& db, Buffers& bufs) {
                 b.t.data = bufs.c.data() + 32;
                 db.t.data = static_cast<float*>(a.t.data) + 1;
             })},
        {"empty axpy with a byte_offset past 2^63", empty_axpy_then([huge](View& x, View&) {
             x.t.byte_offset = huge + 1;
         })},
        {"empty axpy with byte_offset 2^63 - 1", empty_axpy_then([huge](View& x, View&) {
             x.t.byte_offset = huge;
         })},
        {"empty axpy with NULL data", empty_axpy_then([](View& x, View&) { x.t.data = nullptr; })},
        {"empty axpy with y misaligned over x", empty_axpy_then([](View& x, View& y) {
             y.t.data = x.t.data;
             y.t.byte_offset = 2;
         })},
    };
    const std::vector<Outcome> with = run_all(scenarios, true), without = run_all(scenarios, false);
    int failures_seen = 0;
    for (size_t i = 0; i < scenarios.size(); ++i) {
        INFO("scenario: " << scenarios[i].first << "; with the memo: status " << with[i].status << " \""
                          << with[i].message << "\"; without: status " << without[i].status << " \""
                          << without[i].message << "\"");
        CHECK(with[i].status != OPKIT_ERROR_INTERNAL);  // the priming call passed
        CHECK(with[i].status == without[i].status);
        CHECK(with[i].message == without[i].message);
        CHECK(with[i].a == without[i].a);
        CHECK(with[i].b == without[i].b);
        CHECK(with[i].c == without[i].c);
        if (without[i].status != OPKIT_OK) ++failures_seen;
    }
    // The scenarios are meant to cover both verdicts; most are refusals.
    CHECK(failures_seen >= 14);
    CHECK(failures_seen < int(scenarios.size()));
}

// The C++ wrapper: RAII runtime and buffers, exceptions instead of statuses.
#include "opkit.hpp"

#include <cstdio>
#include <vector>

int main() {
    try {
        opkit::runtime rt;
        const opkit_device cpu{OPKIT_DEVICE_CPU, 0};
        std::vector<float> a(6), b(6), y(6);
        for (int i = 0; i < 6; ++i) a[size_t(i)] = 0.5f * float(i) - 1.0f, b[size_t(i)] = 1.0f + float(i);
        int64_t shape[2] = {2, 3};
        const opkit_dtype f32{OPKIT_DTYPE_FLOAT, 32, 1};
        opkit_tensor ta{a.data(), cpu, 2, f32, shape, nullptr, 0};
        opkit_tensor tb{b.data(), cpu, 2, f32, shape, nullptr, 0};
        opkit_tensor ty{y.data(), cpu, 2, f32, shape, nullptr, 0};
        opkit::check(opkit_swiglu_forward(&ta, &tb, &ty, nullptr));
        std::printf("swiglu y[5] = %f\n", double(y[5]));
        // A malformed call throws with the library's explanation.
        opkit::check(opkit_swiglu_forward(&ta, &tb, nullptr, nullptr));
    } catch (const opkit::error& e) {
        std::printf("caught: %s\n", e.what());
        return e.status() == OPKIT_ERROR_INVALID_ARGUMENT ? 0 : 1;
    }
    return 1;
}

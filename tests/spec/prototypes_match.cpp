// Compile-time proof that every vendor prototype in opkit_vendor.h has exactly the type
// of the public op in opkit.h, and both exactly the parameter types of the op spec
// (spec/op_spec.hpp asserts opkit.h against the spec; this adds opkit_vendor.h). A
// mismatch does not build. Names are checked by check_spec.py, which reads the text.
#include "op_spec.hpp"
#include "opkit_vendor.h"

#include <cstdio>
#include <cstring>
#include <type_traits>

#define OPKIT_CHECK_VENDOR_PROTOTYPE(name)                                                   \
    static_assert(std::is_same_v<decltype(&::opkit_vendor_##name), opkit::OpFn<opkit::OpId::name>>, \
                  "opkit_vendor_" #name " in opkit_vendor.h differs from opkit_" #name);
OPKIT_FOR_EACH_OP(OPKIT_CHECK_VENDOR_PROTOTYPE)

// At run time: the library in use reports the same ops and schemas as the spec it was
// built from (a stale libopkit.so next to new headers would not).
int main() {
    int bad = 0;
    if (opkit_op_count() != opkit::kOpCount) {
        std::printf("opkit_op_count() = %d, the spec has %d ops\n", int(opkit_op_count()), int(opkit::kOpCount));
        return 1;
    }
    for (int32_t i = 0; i < opkit::kOpCount; ++i) {
        const char* name = opkit_op_name(i);
        const char* schema = opkit_op_schema(i);
        if (!name || std::strcmp(name, opkit::kOpNames[i]) != 0 || !schema ||
            std::strcmp(schema, opkit::kOpSchemas[i]) != 0) {
            std::printf("op %d: library says %s / %s, the spec %s / %s\n", int(i), name ? name : "NULL",
                        schema ? schema : "NULL", opkit::kOpNames[i], opkit::kOpSchemas[i]);
            ++bad;
        }
    }
    if (opkit_op_schema(-1) != nullptr || opkit_op_schema(opkit::kOpCount) != nullptr) {
        std::printf("opkit_op_schema accepts an index out of range\n");
        ++bad;
    }
    std::printf("%d ops: opkit.h, opkit_vendor.h and the library agree with the spec\n", int(opkit::kOpCount));
    return bad ? 1 : 0;
}

// ascend_emu_symbols KIND [FILE]: the symbols a fake CANN library exports, from the
// vendor's own declarations (vendors/ascend/acl_decls.h), so that the emulator exports
// exactly the subset the vendor declares: no more (a call the vendor forgot to declare
// would fail to resolve), no less.
//
// KIND: runtime9 (libacl_rt.so, and the 9.x libascendcl.so: aclFinalizeReference is 9.x
// only, audit:140), runtime8 (the 8.x libascendcl.so), nnopbase, ops:<family> (the op
// libraries of one generation: nn, math, transformer, legacy for 8.5+/9.x; infer, train,
// math8 for 8.x; all for libopapi.so), ops:all-but:<Op>,<Op> (a libopapi.so missing ops).
// With FILE, writes a linker version script; without, prints one symbol per line.
#include "acl_decls.h"

#include <cstdio>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

// Which library each aclnn op lives in: the open-sourced repos put Add/Mul/Cast in
// ops-math, RoPE in ops-transformer and the rest in ops-nn (ascend.md §0, audit:114). How
// 8.x split ops between libaclnn_ops_infer/_train/_math is not documented; forward ops in
// infer, gradients in train and elementwise math in math is this emulator's assumption.
struct Home {
    const char* repo;     // nn, math, transformer
    const char* feature;  // infer, train, math8
};
const std::map<std::string, Home> kHomes = {
    {"RmsNorm", {"nn", "infer"}},         {"RmsNormGrad", {"nn", "train"}},
    {"LayerNorm", {"nn", "infer"}},       {"LayerNormBackward", {"nn", "train"}},
    {"Softmax", {"nn", "infer"}},         {"SoftmaxBackward", {"nn", "train"}},
    {"LogSoftmax", {"nn", "infer"}},      {"SwiGlu", {"nn", "infer"}},
    {"SwiGluGrad", {"nn", "train"}},      {"GeGlu", {"nn", "infer"}},
    {"GeGluBackward", {"nn", "train"}},   {"RotaryPositionEmbedding", {"transformer", "infer"}},
    {"RotaryPositionEmbeddingGrad", {"transformer", "train"}},
    {"CrossEntropyLoss", {"nn", "infer"}}, {"CrossEntropyLossGrad", {"nn", "train"}},
    {"Embedding", {"nn", "infer"}},       {"EmbeddingDenseBackward", {"nn", "train"}},
    {"Mm", {"nn", "infer"}},              {"BatchMatMul", {"nn", "infer"}},
    {"Addmm", {"nn", "infer"}},           {"Baddbmm", {"nn", "infer"}},
    {"InplaceAdd", {"math", "math8"}},    {"Adds", {"math", "math8"}},
    {"InplaceMuls", {"math", "math8"}},   {"Cast", {"math", "math8"}},
};

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    size_t start = 0;
    while (start <= s.size()) {
        const size_t end = s.find(',', start);
        out.push_back(s.substr(start, end == std::string::npos ? std::string::npos : end - start));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc < 2) {
        std::fprintf(stderr, "usage: ascend_emu_symbols KIND [FILE]\n");
        return 2;
    }
    // Every declared op has a home, and every home is a declared op.
    std::set<std::string> declared(acl::kOpNames, acl::kOpNames + acl::kOpCount);
    for (const std::string& op : declared)
        if (!kHomes.count(op)) {
            std::fprintf(stderr, "ascend_emu_symbols: aclnn%s has no library in kHomes (tests/ascend/emu/symbols.cpp)\n",
                         op.c_str());
            return 1;
        }
    for (const auto& kv : kHomes)
        if (!declared.count(kv.first)) {
            std::fprintf(stderr, "ascend_emu_symbols: kHomes lists %s, which acl_decls.h does not declare\n",
                         kv.first.c_str());
            return 1;
        }

    const std::string kind = argv[1];
    std::vector<std::string> names;
    if (kind == "runtime9" || kind == "runtime8") {
#define EMU_RT_(name, required) \
    if (kind == "runtime9" || std::string(#name) != "aclFinalizeReference") names.push_back(#name);
        OPKIT_ACL_RUNTIME_API(EMU_RT_)
#undef EMU_RT_
    } else if (kind == "nnopbase") {
#define EMU_NN_(name, required) names.push_back(#name);
        OPKIT_ACLNN_BASE_API(EMU_NN_)
#undef EMU_NN_
    } else if (kind.rfind("ops:", 0) == 0) {
        const std::string family = kind.substr(4);
        std::set<std::string> omit;
        if (family.rfind("all-but:", 0) == 0)
            for (const std::string& o : split(family.substr(8))) omit.insert(o);
        for (const std::string& op : declared) {
            const Home& h = kHomes.at(op);
            const bool in = family == "all" || family.rfind("all-but:", 0) == 0 ? !omit.count(op)
                            : family == "legacy"                                 ? false
                                                                                 : family == h.repo || family == h.feature;
            if (!in) continue;
            names.push_back("aclnn" + op + "GetWorkspaceSize");
            names.push_back("aclnn" + op);
        }
        if (family != "all" && family != "legacy" && family.rfind("all-but:", 0) != 0 && names.empty()) {
            std::fprintf(stderr, "ascend_emu_symbols: no op in family '%s'\n", family.c_str());
            return 2;
        }
    } else {
        std::fprintf(stderr, "ascend_emu_symbols: unknown kind '%s'\n", kind.c_str());
        return 2;
    }

    if (argc < 3) {
        for (const std::string& n : names) std::printf("%s\n", n.c_str());
        return 0;
    }
    FILE* f = std::fopen(argv[2], "w");
    if (!f) return 1;
    std::fprintf(f, "/* generated by ascend_emu_symbols %s */\n{\n", kind.c_str());
    if (!names.empty()) {
        std::fprintf(f, "  global:\n");
        for (const std::string& n : names) std::fprintf(f, "    %s;\n", n.c_str());
    }
    std::fprintf(f, "  local:\n    *;\n};\n");
    return std::fclose(f) == 0 ? 0 : 1;
}

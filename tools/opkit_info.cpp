// opkit-info: what this libopkit found — version, search path, every vendor with its
// state and reason, device counts, and which vendor serves each op on each device.
// Usage: opkit-info [--json]
#include "opkit.h"

#include <dlfcn.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

const char* state_name(int32_t s) {
    static const char* const names[] = {"READY", "NO_DEVICE", "INCOMPATIBLE", "LOAD_FAILED", "INIT_FAILED", "DISABLED"};
    return s >= 0 && s <= 5 ? names[s] : "UNKNOWN";
}

std::string device_name(int32_t t) {
    switch (t) {
    case OPKIT_DEVICE_CPU: return "cpu";
    case OPKIT_DEVICE_CUDA: return "cuda";
    case OPKIT_DEVICE_ROCM: return "rocm";
    case OPKIT_DEVICE_ASCEND: return "ascend";
    case 0: return "-";
    default: return "device" + std::to_string(t);
    }
}

std::string json_escape(const char* s) {
    std::string out;
    for (; s && *s; ++s) {
        if (*s == '"' || *s == '\\') out += '\\';
        if (static_cast<unsigned char>(*s) < 0x20) continue;
        out += *s;
    }
    return out;
}

std::string install_dir() {
    Dl_info info{};
    if (!dladdr(reinterpret_cast<void*>(&opkit_version), &info) || !info.dli_fname) return "?";
    std::string p = info.dli_fname;
    return p.substr(0, p.rfind('/')) + "/opkit/vendors";
}

}  // namespace

int main(int argc, char** argv) {
    const bool json = argc > 1 && std::strcmp(argv[1], "--json") == 0;
    if (argc > 1 && !json) {
        std::printf("usage: opkit-info [--json]\n");
        return std::strcmp(argv[1], "--help") == 0 ? 0 : 2;
    }
    const opkit_status st = opkit_init(nullptr);
    if (st != OPKIT_OK) {
        std::fprintf(stderr, "opkit_init failed: %s: %s\n", opkit_status_string(st), opkit_last_error_message());
        return 1;
    }
    const uint32_t v = opkit_version();
    const char* env_path = std::getenv("OPKIT_VENDOR_PATH");

    std::vector<opkit_vendor_info> vendors;
    std::vector<int32_t> device_types = {OPKIT_DEVICE_CPU};
    for (int32_t i = 0; i < opkit_vendor_count(); ++i) {
        opkit_vendor_info vi;
        std::memset(&vi, 0, sizeof vi);
        vi.struct_size = sizeof vi;
        if (opkit_vendor_get_info(i, &vi) != OPKIT_OK) continue;
        vendors.push_back(vi);
        if (vi.state == OPKIT_VENDOR_READY && vi.device_type != OPKIT_DEVICE_CPU) {
            bool seen = false;
            for (int32_t t : device_types) seen = seen || t == vi.device_type;
            if (!seen) device_types.push_back(vi.device_type);
        }
    }
    const int32_t known[] = {OPKIT_DEVICE_CPU, OPKIT_DEVICE_CUDA, OPKIT_DEVICE_ROCM, OPKIT_DEVICE_ASCEND};

    if (json) {
        std::printf("{\n  \"version\": \"%u.%u.%u\",\n  \"search_path\": [", v >> 16, (v >> 8) & 255, v & 255);
        std::printf("\"%s\", \"%s\"],\n  \"vendors\": [", json_escape(env_path ? env_path : "").c_str(),
                    json_escape(install_dir().c_str()).c_str());
        for (size_t i = 0; i < vendors.size(); ++i) {
            const opkit_vendor_info& vi = vendors[i];
            std::printf("%s\n    {\"name\": \"%s\", \"state\": \"%s\", \"version\": \"%s\", \"device\": \"%s\", "
                        "\"device_count\": %d, \"op_count\": %d, \"path\": \"%s\", \"detail\": \"%s\"}",
                        i ? "," : "", json_escape(vi.name).c_str(), state_name(vi.state),
                        json_escape(vi.version).c_str(), device_name(vi.device_type).c_str(), vi.device_count,
                        vi.op_count, json_escape(vi.path).c_str(), json_escape(vi.detail).c_str());
        }
        std::printf("\n  ],\n  \"devices\": {");
        for (size_t i = 0; i < 4; ++i)
            std::printf("%s\"%s\": %d", i ? ", " : "", device_name(known[i]).c_str(), opkit_device_count(known[i]));
        std::printf("},\n  \"ops\": {");
        for (int32_t op = 0; op < opkit_op_count(); ++op) {
            std::printf("%s\n    \"%s\": {", op ? "," : "", opkit_op_name(op));
            for (size_t d = 0; d < device_types.size(); ++d) {
                const char* who = nullptr;
                const bool ok = opkit_op_resolve(opkit_op_name(op), device_types[d], &who) == OPKIT_OK;
                std::printf("%s\"%s\": \"%s\"", d ? ", " : "", device_name(device_types[d]).c_str(), ok ? who : "-");
            }
            std::printf("}");
        }
        std::printf("\n  }\n}\n");
        opkit_shutdown();
        return 0;
    }

    std::printf("opkit %u.%u.%u\n\n", v >> 16, (v >> 8) & 255, v & 255);
    std::printf("vendor search path:\n");
    std::printf("  OPKIT_VENDOR_PATH  %s\n", env_path ? env_path : "(unset)");
    std::printf("  install directory  %s\n\n", install_dir().c_str());
    std::printf("vendors (%zu):\n", vendors.size());
    if (vendors.empty()) std::printf("  none found: every op runs on the built-in CPU defaults\n");
    for (const opkit_vendor_info& vi : vendors) {
        std::printf("  %-12s %-12s %-8s devices %-2d ops %-2d %s\n", vi.name, state_name(vi.state),
                    device_name(vi.device_type).c_str(), vi.device_count, vi.op_count, vi.version);
        std::printf("  %-12s path: %s\n", "", vi.path);
        if (vi.detail && *vi.detail) std::printf("  %-12s why:  %s\n", "", vi.detail);
    }
    std::printf("\ndevices:");
    for (int32_t t : known) std::printf("  %s %d", device_name(t).c_str(), opkit_device_count(t));
    std::printf("\n\nop resolution (who serves each op):\n  %-24s", "op");
    for (int32_t t : device_types) std::printf(" %-14s", device_name(t).c_str());
    std::printf("\n");
    for (int32_t op = 0; op < opkit_op_count(); ++op) {
        std::printf("  %-24s", opkit_op_name(op));
        for (int32_t t : device_types) {
            const char* who = nullptr;
            std::printf(" %-14s", opkit_op_resolve(opkit_op_name(op), t, &who) == OPKIT_OK ? who : "-");
        }
        std::printf("\n");
    }
    opkit_shutdown();
    return 0;
}

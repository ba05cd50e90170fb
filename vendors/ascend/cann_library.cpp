#include "cann_library.h"

#include <dlfcn.h>
#include <link.h>
#include <unistd.h>

#include <cstdlib>
#include <memory>

namespace opkit_ascend {
namespace {

std::unique_ptr<Cann> g_cann;  // written only by vendor init/shutdown, which never race with ops

// Where to look, in order: $ASCEND_HOME_PATH/lib64, then the system loader path ("").
// The install that ASCEND_HOME_PATH names is preferred whole, library by library, over
// anything the loader path would find (audit:115-116: set_env.sh exports it).
std::vector<std::string> search_dirs() {
    std::vector<std::string> dirs;
    const char* home = secure_getenv("ASCEND_HOME_PATH");
    if (home && *home) dirs.push_back(std::string(home) + "/lib64");
    dirs.push_back("");
    return dirs;
}

std::string where(const std::string& dir) { return dir.empty() ? "the system loader path" : dir; }

// Opens `name` in `dir` ("" = by name through the loader path). A file that is absent is
// not an error worth reporting; one that exists and fails to load is: *problems gets it.
void* open_lib(const std::string& dir, const char* name, std::string* path, std::string* problems) {
    std::string p = dir.empty() ? std::string(name) : dir + "/" + name;
    if (!dir.empty() && access(p.c_str(), F_OK) != 0) return nullptr;
    dlerror();
    void* h = dlopen(p.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char* e = dlerror();
        // By name, "cannot open shared object file" only says it is not on the path.
        if (!dir.empty() || (e && std::string(e).find("cannot open shared object file") == std::string::npos)) {
            if (!problems->empty()) *problems += "; ";
            *problems += p + ": " + (e ? e : "dlopen failed");
        }
        return nullptr;
    }
    // Found through the loader path: report where it really is.
    struct link_map* lm = nullptr;
    *path = dir.empty() && dlinfo(h, RTLD_DI_LINKMAP, &lm) == 0 && lm && lm->l_name && *lm->l_name ? lm->l_name : p;
    return h;
}

void* first_of(const std::vector<std::string>& dirs, std::initializer_list<const char*> names, std::string* path,
               std::string* problems) {
    for (const std::string& d : dirs)
        for (const char* n : names)
            if (void* h = open_lib(d, n, path, problems)) return h;
    return nullptr;
}

std::string looked_in(const std::vector<std::string>& dirs) {
    std::string s;
    for (const std::string& d : dirs) s += (s.empty() ? "" : ", then ") + where(d);
    const char* home = secure_getenv("ASCEND_HOME_PATH");
    if (!home || !*home) s += " (ASCEND_HOME_PATH is not set)";
    return s;
}

template <class T>
bool resolve(void* h, const char* name, bool required, T* out, std::string* missing) {
    *out = reinterpret_cast<T>(dlsym(h, name));
    if (!*out && required) *missing += std::string(missing->empty() ? "" : ", ") + name;
    return *out || !required;
}

struct OpLib {
    void* handle;
    std::string path;
};

// The op libraries of one directory, by CANN generation: the per-repo libraries of 8.5+
// (with libopapi_legacy.so beside them), else the all-in-one libopapi.so, else the 8.x
// feature libraries. The docs warn against mixing libopapi.so with the per-repo ones
// (audit:111, 336-341), so a directory's first generation found is used alone.
std::vector<OpLib> op_libs_in(const std::string& dir, std::string* layout, std::string* problems) {
    struct Generation {
        const char* layout;
        std::vector<const char*> names;
        const char* companion;  // loaded too when the generation is present
    };
    static const Generation generations[] = {
        {"per-repo libopapi_*.so (CANN 8.5+)", {"libopapi_nn.so", "libopapi_math.so", "libopapi_transformer.so"},
         "libopapi_legacy.so"},
        {"libopapi.so", {"libopapi.so"}, nullptr},
        {"libaclnn_*.so (CANN 8.x)", {"libaclnn_ops_infer.so", "libaclnn_ops_train.so", "libaclnn_math.so"}, nullptr},
    };
    for (const Generation& g : generations) {
        std::vector<OpLib> libs;
        for (const char* n : g.names) {
            std::string path;
            if (void* h = open_lib(dir, n, &path, problems)) libs.push_back({h, path});
        }
        if (libs.empty()) continue;
        if (g.companion) {
            std::string path;
            if (void* h = open_lib(dir, g.companion, &path, problems)) libs.push_back({h, path});
        }
        *layout = g.layout;
        return libs;
    }
    return {};
}

const char* file_name(const std::string& path) {
    const size_t slash = path.rfind('/');
    return path.c_str() + (slash == std::string::npos ? 0 : slash + 1);
}

}  // namespace

const Cann* cann() { return g_cann.get(); }

void forget_cann() { g_cann.reset(); }

bool load_cann(std::string* why) {
    g_cann.reset();
    auto c = std::make_unique<Cann>();
    const std::vector<std::string> dirs = search_dirs();
    std::string problems;

    // The runtime: libacl_rt.so (recommended from 8.5), else libascendcl.so (audit:108, 338).
    void* rt = first_of(dirs, {"libacl_rt.so", "libascendcl.so"}, &c->runtime_path, &problems);
    if (!rt) {
        *why = "no CANN runtime: neither libacl_rt.so nor libascendcl.so was found in " + looked_in(dirs) +
               (problems.empty() ? "" : " (" + problems + ")") + "; install CANN and source its set_env.sh";
        return false;
    }
    std::string missing;
#define OPKIT_ASCEND_RESOLVE_RT_(name, required) resolve(rt, #name, required, &c->rt.name, &missing);
    OPKIT_ACL_RUNTIME_API(OPKIT_ASCEND_RESOLVE_RT_)
#undef OPKIT_ASCEND_RESOLVE_RT_
    if (!missing.empty()) {
        *why = c->runtime_path + " lacks " + missing + "; this CANN runtime is not one opkit supports";
        return false;
    }

    void* nn = first_of(dirs, {"libnnopbase.so"}, &c->base_path, &problems);
    if (!nn) {
        *why = "libnnopbase.so (aclnn tensors) was not found in " + looked_in(dirs) +
               (problems.empty() ? "" : " (" + problems + ")") + " although the runtime " + c->runtime_path +
               " was";
        return false;
    }
#define OPKIT_ASCEND_RESOLVE_NN_(name, required) resolve(nn, #name, required, &c->nn.name, &missing);
    OPKIT_ACLNN_BASE_API(OPKIT_ASCEND_RESOLVE_NN_)
#undef OPKIT_ASCEND_RESOLVE_NN_
    if (!missing.empty()) {
        *why = c->base_path + " lacks " + missing;
        return false;
    }

    std::vector<OpLib> libs;
    for (const std::string& d : dirs) {
        libs = op_libs_in(d, &c->layout, &problems);
        if (!libs.empty()) break;
    }
    if (libs.empty()) {
        *why = "no aclnn op library (libopapi_nn.so, libopapi.so or libaclnn_ops_infer.so) was found in " +
               looked_in(dirs) + (problems.empty() ? "" : " (" + problems + ")");
        return false;
    }
    for (const OpLib& l : libs) c->op_paths.push_back(l.path);

    // Each op's pair from the first library that has both, so one missing op declines
    // alone instead of failing the vendor (audit:319-320: symbols vary by version).
    for (int i = 0; i < acl::kOpCount; ++i) {
        const std::string ws = std::string("aclnn") + acl::kOpNames[i] + "GetWorkspaceSize";
        const std::string run = std::string("aclnn") + acl::kOpNames[i];
        for (size_t k = 0; k < libs.size(); ++k) {
            void* w = dlsym(libs[k].handle, ws.c_str());
            void* r = dlsym(libs[k].handle, run.c_str());
            if (w && r) {
                c->ops[i].workspace = w;
                c->ops[i].run = reinterpret_cast<acl::aclnnRun_t>(r);
                c->ops[i].library = file_name(c->op_paths[k]);
                ++c->ops_found;
                break;
            }
        }
        if (!c->ops[i].workspace)
            c->missing_ops += std::string(c->missing_ops.empty() ? "" : ", ") + acl::kOpNames[i];
    }
    g_cann = std::move(c);
    return true;
}

}  // namespace opkit_ascend

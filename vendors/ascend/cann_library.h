// Finding and loading CANN at run time: the ACL runtime, nnopbase and the aclnn op
// libraries, each dlopen'ed from $ASCEND_HOME_PATH/lib64 (read with secure_getenv) and
// then from the system loader path; their symbols resolved into the tables below. The
// vendor has no link-time dependency on any of them (the ldd test proves it).
#pragma once

#include "acl_decls.h"

#include <string>
#include <vector>

namespace opkit_ascend {

struct RuntimeApi {
#define OPKIT_ASCEND_FIELD_(name, required) acl::name##_t name = nullptr;
    OPKIT_ACL_RUNTIME_API(OPKIT_ASCEND_FIELD_)
};
struct BaseApi {
    OPKIT_ACLNN_BASE_API(OPKIT_ASCEND_FIELD_)
#undef OPKIT_ASCEND_FIELD_
};

// One aclnn op: its two functions, resolved together from the first op library that has
// both (NULL when none has: the opkit ops that need it decline).
struct OpEntry {
    void* workspace = nullptr;  // aclnn<Op>GetWorkspaceSize, cast to acl::WorkspaceFn<op>
    acl::aclnnRun_t run = nullptr;
    const char* library = nullptr;  // file name of the library it came from
};

struct Cann {
    std::string runtime_path;           // the ACL runtime that was loaded
    std::string base_path;              // libnnopbase.so
    std::vector<std::string> op_paths;  // the op libraries, in resolution order
    std::string layout;                 // "per-repo (9.x)", "libopapi.so", "libaclnn_* (8.x)"
    RuntimeApi rt;
    BaseApi nn;
    OpEntry ops[acl::kOpCount];
    int ops_found = 0;
    std::string missing_ops;  // "GeGlu, Cast": ops no library exports
};

// The loaded tables, or NULL before load_cann succeeded.
const Cann* cann();
// Finds and loads the libraries (again: ASCEND_HOME_PATH may have changed). On failure
// returns false and says which library is missing and where it was looked for.
bool load_cann(std::string* why);
// Forgets the tables. The libraries stay loaded: the ACL runtime keeps threads and device
// contexts that may be shared with torch_npu, and is never unloaded.
void forget_cann();

}  // namespace opkit_ascend

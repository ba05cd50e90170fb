// HIP-over-CUDA test runtime: libhipblaslt.so.0, the hipBLASLt subset the rocm vendor
// calls (vendors/rocm/blas_api.h, namespace lt), implemented on cuBLASLt.
//
// Translated: every enum value (translate.h), the status codes (cublasStatus_t ->
// hipblasStatus_t), the 16-byte hipBLASLt algo (a reference to a cuBLASLt algo kept in
// the shim, algos.h), and the workspace bound it carries (the preference's
// MAX_WORKSPACE_BYTES, as hipBLASLt fills it). Handles, descriptors, layouts and
// preferences are the shim's own small tagged objects wrapping cuBLASLt's, so passing
// one kind where another is expected is HIPBLAS_STATUS_INVALID_VALUE rather than a
// crash. The hipStream_t is the CUstream of the HIP shim and goes to cuBLASLt as is.
// Without cuBLASLt every call is HIPBLAS_STATUS_NOT_INITIALIZED; without a driver
// hipblasLtCreate is (cuBLASLt's CUBLAS_STATUS_NOT_INITIALIZED).
//
// What this cannot prove: which algorithms hipBLASLt has for a gfx target (its
// heuristic may return nothing on gfx908/gfx1030: the vendor must then fall back to
// rocBLAS), its numerics, speed or workspace needs.
#include "algos.h"
#include "cublaslt.h"
#include "declare.h"
#include "translate.h"

#include <cstdint>
#include <cstring>
#include <new>
#include <vector>

namespace lt = opkit_rocm::lt;
using hipshim_blas::CublasLt;

namespace {

// The shim's objects: a tag that says which kind, and the cuBLASLt object.
template <uint32_t Tag, class Cu>
struct Object {
    static constexpr uint32_t kTag = Tag;
    uint32_t tag = Tag;
    Cu cu = nullptr;
};
using Handle = Object<0x4c544831u, cublasLtHandle_t>;  // "LTH1"
using Desc = Object<0x4c544431u, cublasLtMatmulDesc_t>;
using Layout = Object<0x4c544c31u, cublasLtMatrixLayout_t>;
struct Pref : Object<0x4c545031u, cublasLtMatmulPreference_t> {
    uint64_t max_workspace = 0;  // hipBLASLt reports it in each algo
};

template <class T>
T* as(void* p) noexcept {
    T* o = static_cast<T*>(p);
    return o && o->tag == T::kTag ? o : nullptr;
}

// Runs an entry point's body with cuBLASLt loaded; nothing thrown escapes to C.
template <class Body>
lt::Status entry(Body&& body) noexcept {
    try {
        const CublasLt* cu = hipshim_blas::cublaslt();
        if (!cu) return lt::STATUS_NOT_INITIALIZED;
        return body(*cu);
    } catch (const std::bad_alloc&) {
        return lt::STATUS_ALLOC_FAILED;
    } catch (...) {
        return lt::STATUS_INTERNAL_ERROR;
    }
}

template <class T>
lt::Status destroy(void* p, cublasStatus_t (*cu_destroy)(decltype(T::cu))) noexcept {
    if (!p) return lt::STATUS_SUCCESS;
    T* o = as<T>(p);
    if (!o) return lt::STATUS_INVALID_VALUE;
    const cublasStatus_t s = cu_destroy(o->cu);
    o->tag = 0;
    delete o;
    return hipshim_lt::from_cu(s);
}

}  // namespace

extern "C" {

lt::Status hipblasLtCreate(lt::Handle* handle) {
    return entry([&](const CublasLt& cu) {
        if (!handle) return lt::STATUS_HANDLE_IS_NULLPTR;
        Handle* h = new Handle;
        if (cublasStatus_t s = cu.cublasLtCreate(&h->cu)) {
            delete h;
            return hipshim_lt::from_cu(s);
        }
        *handle = h;
        return lt::STATUS_SUCCESS;
    });
}

lt::Status hipblasLtDestroy(lt::Handle handle) {
    return entry([&](const CublasLt& cu) {
        if (!handle) return lt::STATUS_HANDLE_IS_NULLPTR;
        return destroy<Handle>(handle, cu.cublasLtDestroy);
    });
}

lt::Status hipblasLtMatmulDescCreate(lt::MatmulDesc* desc, lt::ComputeType compute, lt::DataType scale) {
    return entry([&](const CublasLt& cu) {
        if (!desc) return lt::STATUS_INVALID_VALUE;
        cublasComputeType_t cu_compute{};
        cudaDataType_t cu_scale{};
        if (lt::Status s = hipshim_lt::to_cu(compute, &cu_compute)) return s;
        if (lt::Status s = hipshim_lt::to_cu(scale, &cu_scale)) return s;
        Desc* d = new Desc;
        if (cublasStatus_t s = cu.cublasLtMatmulDescCreate(&d->cu, cu_compute, cu_scale)) {
            delete d;
            return hipshim_lt::from_cu(s);
        }
        *desc = d;
        return lt::STATUS_SUCCESS;
    });
}

lt::Status hipblasLtMatmulDescDestroy(lt::MatmulDesc desc) {
    return entry([&](const CublasLt& cu) { return destroy<Desc>(desc, cu.cublasLtMatmulDescDestroy); });
}

lt::Status hipblasLtMatmulDescSetAttribute(lt::MatmulDesc desc, lt::DescAttribute attr, const void* value,
                                           size_t size) {
    return entry([&](const CublasLt& cu) {
        Desc* d = as<Desc>(desc);
        if (!d) return lt::STATUS_INVALID_VALUE;
        hipshim_lt::CuAttribute a;
        if (lt::Status s = hipshim_lt::to_cu(attr, value, size, &a)) return s;
        return hipshim_lt::from_cu(cu.cublasLtMatmulDescSetAttribute(
            d->cu, cublasLtMatmulDescAttributes_t(a.attribute), a.value, a.size));
    });
}

lt::Status hipblasLtMatrixLayoutCreate(lt::MatrixLayout* layout, lt::DataType type, uint64_t rows, uint64_t cols,
                                       int64_t ld) {
    return entry([&](const CublasLt& cu) {
        if (!layout) return lt::STATUS_INVALID_VALUE;
        cudaDataType_t cu_type{};
        if (lt::Status s = hipshim_lt::to_cu(type, &cu_type)) return s;
        Layout* l = new Layout;
        if (cublasStatus_t s = cu.cublasLtMatrixLayoutCreate(&l->cu, cu_type, rows, cols, ld)) {
            delete l;
            return hipshim_lt::from_cu(s);
        }
        *layout = l;
        return lt::STATUS_SUCCESS;
    });
}

lt::Status hipblasLtMatrixLayoutDestroy(lt::MatrixLayout layout) {
    return entry([&](const CublasLt& cu) { return destroy<Layout>(layout, cu.cublasLtMatrixLayoutDestroy); });
}

lt::Status hipblasLtMatrixLayoutSetAttribute(lt::MatrixLayout layout, lt::LayoutAttribute attr, const void* value,
                                             size_t size) {
    return entry([&](const CublasLt& cu) {
        Layout* l = as<Layout>(layout);
        if (!l) return lt::STATUS_INVALID_VALUE;
        hipshim_lt::CuAttribute a;
        if (lt::Status s = hipshim_lt::to_cu(attr, value, size, &a)) return s;
        return hipshim_lt::from_cu(cu.cublasLtMatrixLayoutSetAttribute(
            l->cu, cublasLtMatrixLayoutAttribute_t(a.attribute), a.value, a.size));
    });
}

lt::Status hipblasLtMatmulPreferenceCreate(lt::Preference* pref) {
    return entry([&](const CublasLt& cu) {
        if (!pref) return lt::STATUS_INVALID_VALUE;
        Pref* p = new Pref;
        if (cublasStatus_t s = cu.cublasLtMatmulPreferenceCreate(&p->cu)) {
            delete p;
            return hipshim_lt::from_cu(s);
        }
        *pref = p;
        return lt::STATUS_SUCCESS;
    });
}

lt::Status hipblasLtMatmulPreferenceDestroy(lt::Preference pref) {
    return entry([&](const CublasLt& cu) { return destroy<Pref>(pref, cu.cublasLtMatmulPreferenceDestroy); });
}

lt::Status hipblasLtMatmulPreferenceSetAttribute(lt::Preference pref, lt::PreferenceAttribute attr, const void* value,
                                                 size_t size) {
    return entry([&](const CublasLt& cu) {
        Pref* p = as<Pref>(pref);
        if (!p) return lt::STATUS_INVALID_VALUE;
        hipshim_lt::CuAttribute a;
        if (lt::Status s = hipshim_lt::to_cu(attr, value, size, &a)) return s;
        const lt::Status s = hipshim_lt::from_cu(cu.cublasLtMatmulPreferenceSetAttribute(
            p->cu, cublasLtMatmulPreferenceAttributes_t(a.attribute), a.value, a.size));
        if (s == lt::STATUS_SUCCESS && attr == lt::PREF_MAX_WORKSPACE_BYTES)
            std::memcpy(&p->max_workspace, a.value, sizeof p->max_workspace);
        return s;
    });
}

lt::Status hipblasLtMatmulAlgoGetHeuristic(lt::Handle handle, lt::MatmulDesc desc, lt::MatrixLayout a,
                                           lt::MatrixLayout b, lt::MatrixLayout c, lt::MatrixLayout d,
                                           lt::Preference pref, int requested, lt::HeuristicResult* results,
                                           int* returned) {
    return entry([&](const CublasLt& cu) {
        if (!handle) return lt::STATUS_HANDLE_IS_NULLPTR;
        Handle* h = as<Handle>(handle);
        Desc* md = as<Desc>(desc);
        Layout* la = as<Layout>(a);
        Layout* lb = as<Layout>(b);
        Layout* lc = as<Layout>(c);
        Layout* ld = as<Layout>(d);
        Pref* p = as<Pref>(pref);
        if (!h || !md || !la || !lb || !lc || !ld || !p) return lt::STATUS_INVALID_VALUE;
        if (requested <= 0 || !results || !returned) return lt::STATUS_INVALID_VALUE;
        std::vector<cublasLtMatmulHeuristicResult_t> cu_results(static_cast<size_t>(requested));
        int n = 0;
        if (cublasStatus_t s = cu.cublasLtMatmulAlgoGetHeuristic(h->cu, md->cu, la->cu, lb->cu, lc->cu, ld->cu,
                                                                 p->cu, requested, cu_results.data(), &n))
            return hipshim_lt::from_cu(s);
        for (int i = 0; i < n; ++i) {
            const cublasLtMatmulHeuristicResult_t& r = cu_results[size_t(i)];
            lt::HeuristicResult out{};
            if (!hipshim_lt::remember(r.algo, &out.algo)) return lt::STATUS_ALLOC_FAILED;
            out.algo.max_workspace_bytes = size_t(p->max_workspace);
            out.workspaceSize = r.workspaceSize;
            out.state = hipshim_lt::from_cu(r.state);
            out.wavesCount = r.wavesCount;
            results[i] = out;
        }
        *returned = n;
        return lt::STATUS_SUCCESS;
    });
}

// algo may be NULL: cuBLASLt (like hipBLASLt) then runs its own heuristic.
lt::Status hipblasLtMatmul(lt::Handle handle, lt::MatmulDesc desc, const void* alpha, const void* a,
                           lt::MatrixLayout a_layout, const void* b, lt::MatrixLayout b_layout, const void* beta,
                           const void* c, lt::MatrixLayout c_layout, void* d, lt::MatrixLayout d_layout,
                           const lt::Algo* algo, void* workspace, size_t workspace_bytes, hipStream_t stream) {
    return entry([&](const CublasLt& cu) {
        if (!handle) return lt::STATUS_HANDLE_IS_NULLPTR;
        Handle* h = as<Handle>(handle);
        Desc* md = as<Desc>(desc);
        Layout* la = as<Layout>(a_layout);
        Layout* lb = as<Layout>(b_layout);
        Layout* lc = as<Layout>(c_layout);
        Layout* ld = as<Layout>(d_layout);
        if (!h || !md || !la || !lb || !lc || !ld || !alpha || !beta) return lt::STATUS_INVALID_VALUE;
        cublasLtMatmulAlgo_t cu_algo{};
        if (algo && !hipshim_lt::recall(*algo, &cu_algo)) return lt::STATUS_INVALID_VALUE;
        return hipshim_lt::from_cu(cu.cublasLtMatmul(h->cu, md->cu, alpha, a, la->cu, b, lb->cu, beta, c, lc->cu,
                                                     d, ld->cu, algo ? &cu_algo : nullptr, workspace,
                                                     workspace_bytes, reinterpret_cast<cudaStream_t>(stream)));
    });
}

}  // extern "C"

/* The emulator's test-only control interface, exported by libascend_emu.so (the core
 * every fake CANN library of tests/ascend links): what a test injects and what it reads
 * back. No fake CANN library exports any of it, so the vendor cannot see it.
 *
 * Failures are a comma-separated spec, also read from $ASCEND_EMU_FAIL when the core
 * loads (for runs of whole programs: opkit-conformance, tiny_lm):
 *   no_device            aclrtGetDeviceCount succeeds with 0 devices
 *   device_count_error   aclrtGetDeviceCount fails with 207004 (ACL_ERROR_RT_NO_DEVICE)
 *   init_error           aclInit fails with 500001 (ACL_ERROR_FAILURE)
 *   oom                  every aclrtMalloc fails with 207001 (ACL_ERROR_RT_MEMORY_ALLOCATION)
 *   oom_after=N          the first N aclrtMalloc calls succeed, the rest fail as above
 *   ws:<Op>=<code>       aclnn<Op>GetWorkspaceSize fails with <code> (e.g. 561003, 161002)
 *   exec:<Op>=<code>     aclnn<Op> (phase 2) fails with <code>, enqueuing nothing
 *   kernel:<Op>          aclnn<Op>'s task fails when the stream runs it (507035, reported
 *                        by the synchronization that runs it)
 * Device count: $ASCEND_EMU_DEVICES (default 2). */
#ifndef ASCEND_EMU_CONTROL_H_
#define ASCEND_EMU_CONTROL_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Replaces the injected failures; "" = none. 0, or -1 for a spec it does not understand. */
int ascend_emu_set_failures(const char* spec);

typedef struct ascend_emu_stats {
    int64_t live_tensors, live_scalars, live_int_arrays, live_bool_arrays, live_executors;
    int64_t live_allocations;   /* aclrtMalloc'd blocks not yet freed */
    int64_t pending_tasks;      /* queued on streams, not yet run */
    int64_t tasks_run;
    int64_t violations;         /* strictness checks that failed (each also an error status) */
    int64_t acl_init_calls, aclnn_init_calls, finalize_reference_calls, init_refs;
    int64_t set_device_calls;
} ascend_emu_stats;

void ascend_emu_get_stats(ascend_emu_stats* out);
/* The text of the last strictness violation ("" when none). */
const char* ascend_emu_last_violation(void);
/* The file (base name) of the fake library whose export `symbol` last served; "" when
 * it was never called. */
const char* ascend_emu_served_by(const char* symbol);
/* Forgets served_by records and resets tasks_run and violations. */
void ascend_emu_reset_counters(void);

#ifdef __cplusplus
}
#endif

#endif /* ASCEND_EMU_CONTROL_H_ */

/* Compiled by ctest as strict C99 and as C++11: both public headers must be clean
 * under -pedantic -Wall -Wextra -Werror in either language. */
#include "opkit.h"
#include "opkit_vendor.h"

/* Use a few declarations so that an unused-but-broken prototype would still be seen. */
static opkit_status (*const fn_check)(const opkit_tensor*, opkit_tensor*, opkit_stream) =
    opkit_softmax_forward;

int opkit_header_check(void);
int opkit_header_check(void) {
    opkit_init_options o = {sizeof(opkit_init_options), 0, 0, 0, -1, -1};
    opkit_vendor_desc d;
    (void)o;
    (void)d;
    (void)fn_check;
    return (int)OPKIT_VENDOR_ABI_VERSION + (int)OPKIT_VERSION_NUMBER;
}

/* settings/guest.c: the kernel command line of a guest (see guest.h). */
#include <glib.h>

#include "settings/guest.h"

char *guest_cmdline(const char *cell_id, const char *append) {
        return g_strdup_printf(GUEST_CMDLINE_BASE "%s%s%s", cell_id, append ? " " : "", append ? append : "");
}

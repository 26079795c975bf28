/* floor-linked: floor.c's work (read the files plan reads, list the
 * directories it lists) in a process that links the libraries hosttune
 * links for every command — libconfig, libmount (with libblkid,
 * libselinux and libpcre2 below it) and json-c — and never calls them.
 * Loading, relocating and initialising them (libselinux's constructor
 * looks for selinuxfs and reads /proc/filesystems) is what any program
 * built on them pays before its first line of work; libsystemd and
 * libaudit are loaded by hosttune only where used (src/core/dlib.c), so
 * not here either. hosttune / floor-linked is the price of hosttune's own
 * code, libraries' work included (issue 34's fair second floor;
 * floor-libs.c also parses the profiles and rules with libconfig, which
 * a plan of the shipped profiles no longer does: they are frozen into
 * the binary, tools/ht-freeze).
 *
 *   floor-linked LIST     LIST: lines "F /abs/path" (read) or "D /abs/dir" (list)
 */
#include <json-c/json.h>
#include <libconfig.h>
#include <libmount.h>

/* One symbol of each library, referenced and never called, so that no
 * linker drops a library as unneeded (--as-needed): the references are
 * bound at load, as hosttune's are. */
void *volatile floor_linked_refs[] = {
        (void *)config_init,
        (void *)mnt_new_table,
        (void *)json_object_new_object,
};

#include "floor.c"

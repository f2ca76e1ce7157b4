/* gcc-common.h -- the one place that includes GCC's plugin headers, in the
   order GCC 12 needs them.  Every version difference goes here.  (The
   version check against the running GCC, plugin-version.h, is
   cce-plugin.cc's alone: the header defines data.)  */

#ifndef CCE_GCC_COMMON_H
#define CCE_GCC_COMMON_H

#include "gcc-plugin.h"
#include "bversion.h"
#include "config.h"
#include "system.h"
#include "coretypes.h"
#include "backend.h"
#include "tree.h"
#include "gimple.h"
#include "tree-pass.h"
#include "ssa.h"
#include "cgraph.h"
#include "ipa-utils.h"
#include "context.h"
#include "diagnostic-core.h"
#include "fold-const.h"
#include "gimple-iterator.h"
#include "gimplify-me.h"
#include "stringpool.h"
#include "attribs.h"
#include "varasm.h"
#include "tree-cfg.h"
#include "tree-eh.h"
#include "except.h"
#include "tree-into-ssa.h"
#include "tree-ssanames.h"
#include "cfghooks.h"
#include "cfgloop.h"
#include "dominance.h"
#include "langhooks.h"
#include "output.h"
#include "dumpfile.h"
#include "calls.h"
#include "opts.h"
#include "toplev.h"
#include "intl.h"
#include "flags.h"
#include "options.h"
#include "profile-count.h"
#include "sreal.h"
#include "alloc-pool.h"
#include "symbol-summary.h"
#include "tree-vrp.h"
#include "ipa-prop.h"
#include "ipa-fnsummary.h"

#if BUILDING_GCC_MAJOR != 12
#error "cce supports GCC 12 only"
#endif

#endif /* CCE_GCC_COMMON_H */

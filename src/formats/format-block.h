/* Block devices as /sys/block names them, the one classification for
 * every reader: the block backend (which devices it tunes, which pass
 * their scheduler to their slaves) and the block facts (block.devices),
 * so `facts` and a plan cannot disagree about what a device is. Pure:
 * names and sysfs text in, kinds and words out. */
#pragma once

#include <stdbool.h>

typedef enum {
        HT_BLOCK_DISK,     /* sd*, nvme*n*, vd*, xvd*, mmcblk*, ...: anything else */
        HT_BLOCK_DM,       /* dm-*: device-mapper (LVM, multipath, crypt) */
        HT_BLOCK_MD,       /* md*: software RAID */
        HT_BLOCK_LOOP,     /* loop*: a file */
        HT_BLOCK_RAM,      /* ram*: brd */
        HT_BLOCK_ZRAM,     /* zram*: compressed memory */
        HT_BLOCK_OPTICAL,  /* sr*: CD/DVD */
        HT_BLOCK_NBD,      /* nbd*: a network peer */
        HT_BLOCK_FLOPPY,   /* fd* */
} ht_block_kind;

/* The kind of a /sys/block entry by its kernel name. */
ht_block_kind ht_block_kind_of(const char *name);
/* "disk", "dm", "md", "loop", "ram", "zram", "optical", "nbd", "floppy" */
const char *ht_block_kind_to_string(ht_block_kind k);
/* Never tuned: its queue belongs to a file, memory, a network peer or
 * removable media (loop, ram, zram, optical, nbd, floppy). */
bool ht_block_kind_never_touched(ht_block_kind k);
/* Stacked (dm, md): no scheduler of its own on blk-mq; its slaves have. */
bool ht_block_kind_stacked(ht_block_kind k);
/* A path of a multipath NVMe namespace: "nvme%dc%dn%d", the name the
 * kernel gives only to the hidden gendisk of each controller's path
 * (drivers/nvme/host/core.c, nvme_alloc_ns, with GENHD_FL_HIDDEN);
 * udev never hears of it (block/genhd.c since 5.15: "for hidden disks
 * uevents remain suppressed forever"). */
bool ht_block_hidden_nvme_path(const char *name);
/* The never-touched kinds as a udev KERNEL== glob, for the rules file. */
#define HT_BLOCK_NEVER_TOUCHED_GLOB "loop*|ram*|zram*|sr*|nbd*|fd*"

/* queue/scheduler ("mq-deadline kyber [bfq] none"): the offered words,
 * brackets removed; NULL when the queue offers no choice (no bracketed
 * word: "none" alone on a stacked blk-mq device). */
char **ht_block_scheduler_offered(const char *raw);
/* The bracketed word, NULL when there is none (no choice). */
char *ht_block_scheduler_selected(const char *raw);

#!/usr/bin/python
# -*- coding: utf-8 -*-
# hosttune Ansible module: drives the installed hosttune binary with --json,
# so a fleet is tuned by the same engine (and the same plan) as one host.
# SPDX-License-Identifier: GPL-2.0-or-later

from __future__ import absolute_import, division, print_function

__metaclass__ = type

DOCUMENTATION = r'''
---
module: hosttune
short_description: Tune a host to a hosttune profile, verify it, or roll it back
description:
  - Runs the C(hosttune) binary installed on the managed host with C(--json).
  - C(state=applied) runs C(hosttune apply); in check mode it runs
    C(hosttune plan) instead, which is exactly the first half of apply, so
    no change in check mode means that apply changes nothing.
  - In diff mode the file edits hosttune makes (sysctl.d, limits.d and unit
    drop-ins, the GRUB defaults file, ...) are returned as Ansible diffs.
  - C(state=verified) runs C(hosttune verify); drift fails the task, a
    pending reboot does not (C(reboot_pending=true)).
  - C(state=rolled_back) runs C(hosttune rollback).
  - C(state=budgeted) runs C(hosttune budget), which is read-only and runs
    in check mode too. It lists every consumer of memory on the host and the
    HugePages each workload needs, and with C(what_if) says whether a
    planned workload fits before it is deployed. A budget that does not fit
    fails the task.
version_added: "0.1.0"
author: hosttune developers (@hosttune)
requirements:
  - hosttune installed on the managed host (the C(hosttune) package)
options:
  profile:
    description:
      - Profile name (C(oracle), C(mysql), C(jvm), C(base), a site profile, or
        workload profiles joined by C(+), as C(oracle+jvm)).
      - With C(state=budgeted) optional; default the workloads the host's facts find.
    type: str
  params:
    description:
      - Profile parameters, each passed as C(--set NAME=VALUE).
      - Booleans become C(true)/C(false); other values are passed as text.
    type: dict
    default: {}
  state:
    description: What the host should end up as.
    type: str
    choices: [applied, verified, rolled_back, budgeted]
    default: applied
  what_if:
    description:
      - With C(state=budgeted), planned workloads to add to the budget, each
        C(WORKLOAD) or C(WORKLOAD:NAME=VALUE[,NAME=VALUE]...), as
        C(oracle:sga_max_size=48G) (C(hosttune budget --what-if)).
    type: list
    elements: str
    default: []
  txid:
    description:
      - With C(state=rolled_back), undo this transaction and every later one
        instead of only the last one.
    type: str
  root:
    description: Operate on the host tree under this directory (C(--root)), e.g. a mounted image.
    type: path
  live_root:
    description:
      - The C(root) tree is the running system, not an image (C(--live-root)), e.g. the host's
        C(/) mounted into a tuning container. Without it a C(root) tree is an image whatever
        it holds, and no program of it runs.
    type: bool
    default: false
  state_dir:
    description: Journal and backup directory (C(--state-dir)).
    type: path
  profile_path:
    description: Directories searched for profiles before the default ones (C(--profile-path)).
    type: list
    elements: path
    default: []
  binary:
    description:
      - The hosttune executable. A bare name is looked up on C(PATH) and in the
        sbin directories; a path is used as it is.
    type: str
    default: hosttune
notes:
  - Check mode is supported for C(applied) (plan), C(verified) and
    C(budgeted) (read-only anyway). hosttune has no dry run for rollback, so C(rolled_back) is
    skipped in check mode.
  - Diff mode is supported.
'''

EXAMPLES = r'''
- name: Tune the database hosts for Oracle
  hosttune.hosttune.hosttune:
    profile: oracle
    params:
      sga_max_size: 18G
  register: tuning

- name: Reboot where the kernel command line or HugePages need it
  ansible.builtin.reboot:
  when: tuning.reboot_required

- name: Prove the tuning on the booted kernel
  hosttune.hosttune.hosttune:
    state: verified

- name: Before deploying a 48 GB SGA, ask whether it fits (fails when not)
  hosttune.hosttune.hosttune:
    state: budgeted
    what_if:
      - oracle:sga_max_size=48G
  check_mode: true

- name: Undo the last tuning transaction
  hosttune.hosttune.hosttune:
    state: rolled_back
'''

RETURN = r'''
budget:
  description:
    - The budget as C(hosttune budget --json) prints it (hosttune(8), JSON
      OUTPUT, budget) with its consumers, the HugePages planned and the cap.
    - With C(what_if), the budget with the added workloads is under
      C(what_if), with C(fits), C(apply_would_change) and C(must_give).
  returned: state=budgeted (also when it does not fit)
  type: dict
fits:
  description: Whether the budget fits, with the C(what_if) workloads when given.
  returned: state=budgeted (also when it does not fit)
  type: bool
changed:
  description:
    - Whether hosttune changed (or, in check mode, would change) something.
    - C(applied) in check mode is plan's exit status 2; otherwise hosttune's own
      C(changed). C(verified) never reports a change.
  returned: always
  type: bool
cmd:
  description: The hosttune command line that was run (or, for C(rolled_back) in check mode, would be).
  returned: always
  type: list
  elements: str
hosttune_rc:
  description: hosttune's exit status (0; 2 for plan with changes pending or verify drift; 3 for verify with a reboot pending).
  returned: whenever hosttune ran and printed its JSON (not for C(rolled_back) in check mode)
  type: int
hosttune_skipped:
  description:
    - Optional settings hosttune left out because this host cannot take them
      (a kernel without hugetext, a sysctl key the kernel lacks, a unit the host
      does not have), and settings whose C(when) is false here. Not C(skipped),
      which Ansible reserves for a skipped task.
  returned: state=applied
  type: list
  elements: dict
  contains:
    setting:
      description: Backend and key of the setting (several joined by commas).
      type: str
    reason:
      description: Why it was left out.
      type: str
    source:
      description: The rule, or the setting's FILE:LINE.
      type: str
    set_by:
      description: Who sets it instead (a kernel command line word of a container or a direct-kernel VM).
      type: str
      returned: when another machine sets it
    condition:
      description: The setting's C(when) expression as written.
      type: str
      returned: when a C(when) left it out
hosttune_warnings:
  description: hosttune's warnings (also shown as module warnings).
  returned: whenever hosttune ran and printed its JSON (not for C(rolled_back) in check mode)
  type: list
  elements: str
profile:
  description:
    - C(applied) the profile hosttune planned or applied.
    - C(verified) the profile of the transaction verify checked (null when nothing is applied).
    - C(budgeted) the profile budgeted (with C(what_if), the composition with the added workloads).
  returned: state=applied, state=verified, state=budgeted
  type: str
reboot_required:
  description:
    - C(applied) some change only takes effect after a reboot.
    - C(rolled_back) the kernel command line was restored, so a reboot completes the rollback.
  returned: state=applied, state=rolled_back (not in check mode)
  type: bool
txid:
  description:
    - C(applied) the transaction id of the apply (null when nothing changed or in check mode).
    - C(verified) the transaction verify checked (null when nothing is applied).
  returned: state=applied, state=verified
  type: str
changes:
  description: Runtime and persisted changes, one entry per setting not yet in its state.
  returned: state=applied
  type: list
  elements: dict
  contains:
    backend:
      description: The backend (sysctl, sysfs, limits, cmdline, hugepages, systemd, block, cpu, ...).
      type: str
    key:
      description: The setting's key (for a block device's part, the device and the key, C(sda queue/scheduler)).
      type: str
    current:
      description: The value now (null when unset).
      type: str
    desired:
      description: The value hosttune sets.
      type: str
    runtime:
      description: Written to the running kernel, not only persisted.
      type: bool
    reboot_required:
      description: Takes full effect only after a reboot.
      type: bool
    outcome:
      description: change, kept, skipped, overridden or failed.
      type: str
    source:
      description: Where the setting came from (FILE:LINE or the rule).
      type: str
      returned: when known
    bound:
      description: exact, at-least, at-most or range.
      type: str
    bound_value:
      description: The setting's own value when the bound is not exact (C(desired) is C(current) moved into the bound).
      type: str
      returned: when bound is not exact
    path:
      description: The sysfs or /proc file written.
      type: str
      returned: for runtime changes that have one
    note:
      description: A note on the change (the cpufreq policy and its CPUs, who sets a skipped word).
      type: str
      returned: where there is one
    setting:
      description: For one device's part of a block setting, the setting's key, by which verify judges it.
      type: str
      returned: for block settings
files:
  description: File edits.
  returned: state=applied
  type: list
  elements: dict
  contains:
    path:
      description: The file, as seen on the host (without the root).
      type: str
    backend:
      description: The backend that edits it.
      type: str
    action:
      description: create, modify or remove.
      type: str
    diff:
      description: Unified diff.
      type: str
    before:
      description: The whole contents before (empty for a new file).
      type: str
    after:
      description: The whole contents after (empty for a removed file).
      type: str
actions:
  description: Follow-up actions apply runs (grub regeneration, daemon-reload).
  returned: state=applied
  type: list
  elements: dict
  contains:
    action:
      description: Its kind.
      type: str
    argv:
      description: The command (missing when there is none to run).
      type: list
      elements: str
      returned: when there is a command
    description:
      description: What it does.
      type: str
diff:
  description: One Ansible diff entry per edited file.
  returned: state=applied in diff mode
  type: list
  elements: dict
  contains:
    before:
      description: Contents before.
      type: str
      returned: when hosttune gave the whole contents
    after:
      description: Contents after.
      type: str
      returned: when hosttune gave the whole contents
    before_header:
      description: The path, or C(PATH (absent)) for a new file.
      type: str
      returned: when hosttune gave the whole contents
    after_header:
      description: The path, or C(PATH (removed)) for a removed file.
      type: str
      returned: when hosttune gave the whole contents
    prepared:
      description: hosttune's unified diff, when it gave no whole contents.
      type: str
      returned: when hosttune gave only a diff
status:
  description: verify status (ok, drift, reboot-pending).
  returned: state=verified (also when drift fails the task)
  type: str
checks:
  description: verify checks, one per value or file the transaction set.
  returned: state=verified (also when drift fails the task)
  type: list
  elements: dict
  contains:
    backend:
      description: The backend (or C(hugepages) for the HugePages checks, C(file) for a file's hash).
      type: str
    key:
      description: The setting's key or the file's path.
      type: str
    expected:
      description: The value the transaction set.
      type: str
    actual:
      description: The value now (null when missing).
      type: str
    status:
      description: ok, drift or reboot-pending.
      type: str
    hint:
      description: Advice (what changed it, the command that restores it).
      type: str
      returned: where there is advice
reboot_pending:
  description: Applied changes are waiting for a reboot (verify exit status 3).
  returned: state=verified
  type: bool
applied:
  description: Whether an apply is in effect (false when the last one was rolled back; then C(profile) and C(txid) are null).
  returned: state=verified
  type: bool
applied_at:
  description: When the transaction verify checked was committed (ISO 8601, UTC; null when nothing is applied).
  returned: state=verified
  type: str
rebooted_since_apply:
  description: Whether the host booted since that transaction.
  returned: state=verified
  type: bool
txids:
  description: Transactions undone by the rollback, newest first (empty when there was nothing to roll back).
  returned: state=rolled_back (not in check mode)
  type: list
  elements: str
rollback_txid:
  description: The transaction that records the rollback itself (null when there was nothing to roll back).
  returned: state=rolled_back (not in check mode)
  type: str
skipped:
  description: C(rolled_back) in check mode is skipped, since hosttune has no dry run for rollback.
  returned: state=rolled_back in check mode
  type: bool
msg:
  description: Why the task was skipped or failed.
  returned: state=rolled_back in check mode, and on failure
  type: str
rc:
  description: hosttune's exit status when it was not one the state accepts.
  returned: failure, when hosttune exited with an unexpected status
  type: int
stderr:
  description: hosttune's standard error.
  returned: failure, when hosttune ran
  type: str
stdout:
  description: hosttune's standard output, when it was not a JSON object.
  returned: failure, when hosttune printed no JSON object
  type: str
hosttune:
  description:
    - hosttune's JSON result when it failed, the command's object as hosttune(8),
      JSON OUTPUT, describes it.
  returned: failure, when hosttune printed a JSON object
  type: dict
  contains:
    errors:
      description: What plan or apply found the host cannot take (also in C(msg)).
      type: list
      elements: str
      returned: for plan and apply
    error:
      description: The error object's message (C(msg) when hosttune wrote nothing to standard error).
      type: str
      returned: when hosttune printed its error object (a command that failed before its own result)
    exit_code:
      description: The error object's exit status.
      type: int
      returned: when hosttune printed its error object
    usage:
      description: Whether it was a command-line (usage) error.
      type: bool
      returned: when hosttune printed its error object
'''

import json
import os
import re

from ansible.module_utils.basic import AnsibleModule

# hosttune's exit codes (hosttune(8)).
EXIT_OK = 0
EXIT_ERROR = 1
EXIT_PENDING = 2   # plan: changes pending; verify: drift
EXIT_REBOOT = 3    # verify: applied changes wait for a reboot


def param_text(name, value):
    """One --set argument; refuses what hosttune would misread."""
    if not isinstance(name, str) or not name or '=' in name:
        raise ValueError("parameter name %r is not a valid NAME" % (name,))
    if isinstance(value, bool):
        text = 'true' if value else 'false'
    elif value is None:
        raise ValueError("parameter %s has no value" % name)
    elif isinstance(value, (dict, list)):
        raise ValueError("parameter %s must be a scalar, not a %s" % (name, type(value).__name__))
    else:
        text = str(value)
    if '\n' in text or '\r' in text or '\0' in text:
        raise ValueError("parameter %s: value must be a single line" % name)
    return '%s=%s' % (name, text)


def check_word(module, what, value):
    """Profile names and txids are single words; one starting with '-' would
    be read as an option by hosttune's getopt."""
    if not re.match(r'^[A-Za-z0-9_][A-Za-z0-9_.@+:-]*$', value):
        module.fail_json(msg="invalid %s %r" % (what, value))


def find_binary(module):
    binary = module.params['binary']
    if '/' in binary:
        if not (os.path.isfile(binary) and os.access(binary, os.X_OK)):
            module.fail_json(msg="hosttune binary %s is not an executable file" % binary)
        return binary
    # get_bin_path also searches /sbin, /usr/sbin and /usr/local/sbin.
    return module.get_bin_path(binary, required=True)


def base_argv(module):
    p = module.params
    argv = [find_binary(module), '--json']
    if p['root']:
        argv += ['--root', p['root']]
    if p['live_root']:
        argv += ['--live-root']
    if p['state_dir']:
        argv += ['--state-dir', p['state_dir']]
    for d in p['profile_path'] or []:
        argv += ['--profile-path', d]
    return argv


def run(module, argv, ok_codes):
    """Run hosttune; fail the task with its own message on an unexpected exit."""
    rc, out, err = module.run_command(argv, environ_update={'LC_ALL': 'C'})
    data = None
    if out.strip():
        try:
            data = json.loads(out)
        except ValueError:
            data = None
    if rc not in ok_codes:
        msg = err.strip()
        if not msg and isinstance(data, dict) and isinstance(data.get('error'), str):
            # the error object hosttune --json prints when a command fails
            # before its own document
            msg = data['error']
        msg = msg or ("hosttune exited with status %d" % rc)
        extra = {}
        if isinstance(data, dict):
            # plan/apply list what the host cannot take in errors[].
            if data.get('errors'):
                msg = '%s: %s' % (msg, '; '.join(str(e) for e in data['errors']))
            extra['hosttune'] = data
        module.fail_json(msg=msg, rc=rc, cmd=argv, stderr=err, **extra)
    if not isinstance(data, dict):
        module.fail_json(msg="hosttune printed no JSON object", rc=rc, cmd=argv,
                         stdout=out, stderr=err)
    return rc, data, err


def file_diffs(files):
    """Ansible diff entries from hosttune's files[]."""
    diffs = []
    for f in files or []:
        if not isinstance(f, dict):
            continue
        path = f.get('path', '')
        if 'before' in f or 'after' in f:
            # null before: the file is new; null after: it is removed.
            diffs.append({
                'before': f.get('before') or '',
                'after': f.get('after') or '',
                'before_header': path if f.get('before') is not None else '%s (absent)' % path,
                'after_header': path if f.get('after') is not None else '%s (removed)' % path,
            })
        elif f.get('diff'):
            diffs.append({'prepared': f['diff']})
    return diffs


def warn_all(module, data):
    warnings = [str(w) for w in (data.get('warnings') or [])]
    for w in warnings:
        module.warn(w)
    return warnings


def do_applied(module):
    p = module.params
    check_word(module, 'profile name', p['profile'])
    argv = base_argv(module)
    if module.check_mode:
        argv += ['plan', p['profile']]
        ok = (EXIT_OK, EXIT_PENDING)
    else:
        argv += ['apply', p['profile']]
        ok = (EXIT_OK,)
    for name in sorted(p['params'] or {}):
        try:
            argv += ['--set', param_text(name, p['params'][name])]
        except ValueError as e:
            module.fail_json(msg=str(e))
    rc, data, _ = run(module, argv, ok)
    if module.check_mode:
        changed = rc == EXIT_PENDING
    else:
        changed = bool(data.get('changed'))
    result = dict(
        changed=changed,
        hosttune_rc=rc,
        cmd=argv,
        profile=data.get('profile', p['profile']),
        reboot_required=bool(data.get('reboot_required')),
        txid=data.get('txid'),
        changes=data.get('changes') or [],
        files=data.get('files') or [],
        actions=data.get('actions') or [],
        hosttune_skipped=data.get('skipped') or [],
        hosttune_warnings=warn_all(module, data),
    )
    if module._diff:
        result['diff'] = file_diffs(result['files'])
    module.exit_json(**result)


def do_verified(module):
    argv = base_argv(module) + ['verify']
    rc, data, _ = run(module, argv, (EXIT_OK, EXIT_PENDING, EXIT_REBOOT))
    result = dict(
        changed=False,
        hosttune_rc=rc,
        cmd=argv,
        status=data.get('status'),
        checks=data.get('checks') or [],
        reboot_pending=rc == EXIT_REBOOT,
        # which transaction verify checked, so that a fleet report can say
        # what each host runs (null when nothing is applied there)
        applied=bool(data.get('applied', True)),
        profile=data.get('profile'),
        txid=data.get('txid'),
        applied_at=data.get('applied_at'),
        rebooted_since_apply=bool(data.get('rebooted_since_apply')),
        hosttune_warnings=warn_all(module, data),
    )
    if rc == EXIT_PENDING:
        drifted = [c for c in result['checks']
                   if isinstance(c, dict) and c.get('status') not in ('ok', 'reboot-pending')]
        keys = ', '.join('%s %s' % (c.get('backend', '?'), c.get('key', '?')) for c in drifted)
        module.fail_json(msg="hosttune verify found drift%s" % (': ' + keys if keys else ''),
                         **result)
    module.exit_json(**result)


def do_rolled_back(module):
    argv = base_argv(module) + ['rollback']
    if module.params['txid']:
        check_word(module, 'transaction id', module.params['txid'])
        argv.append(module.params['txid'])
    if module.check_mode:
        module.exit_json(changed=False, skipped=True, cmd=argv,
                         msg="hosttune has no dry run for rollback; skipped in check mode")
    rc, data, _ = run(module, argv, (EXIT_OK,))
    module.exit_json(
        changed=bool(data.get('changed')),
        hosttune_rc=rc,
        cmd=argv,
        txids=data.get('txids') or [],
        rollback_txid=data.get('rollback_txid'),
        reboot_required=bool(data.get('reboot_required')),
        hosttune_warnings=warn_all(module, data),
    )


def budget_item(value):
    """One --what-if argument: WORKLOAD[:NAME=VALUE[,NAME=VALUE]...]."""
    if not isinstance(value, str) or not re.match(
            r'^[A-Za-z0-9_][A-Za-z0-9_.-]*(:[A-Za-z0-9_]+=[^,\s]+(,[A-Za-z0-9_]+=[^,\s]+)*)?$', value):
        raise ValueError("what_if %r is not WORKLOAD[:NAME=VALUE[,NAME=VALUE]...]" % (value,))
    return value


def do_budgeted(module):
    p = module.params
    argv = base_argv(module) + ['budget']
    if p['profile']:
        check_word(module, 'profile name', p['profile'])
        argv.append(p['profile'])
    try:
        for name in sorted(p['params'] or {}):
            argv += ['--set', param_text(name, p['params'][name])]
        for w in p['what_if'] or []:
            argv += ['--what-if', budget_item(w)]
    except ValueError as e:
        module.fail_json(msg=str(e))
    # read-only: the same in check mode; exit 2 means it does not fit
    rc, data, _ = run(module, argv, (EXIT_OK, EXIT_PENDING))
    shown = data.get('what_if') if isinstance(data.get('what_if'), dict) else data
    result = dict(
        changed=False,
        hosttune_rc=rc,
        cmd=argv,
        profile=shown.get('profile'),
        budget=data,
        fits=rc == EXIT_OK,
    )
    if rc != EXIT_OK:
        why = [str(e) for e in (shown.get('errors') or []) + (shown.get('must_give') or [])]
        module.fail_json(msg="the memory budget does not fit%s" % (': ' + '; '.join(why) if why else ''),
                         **result)
    module.exit_json(**result)


def main():
    module = AnsibleModule(
        argument_spec=dict(
            profile=dict(type='str'),
            params=dict(type='dict', default={}),
            state=dict(type='str', default='applied',
                       choices=['applied', 'verified', 'rolled_back', 'budgeted']),
            what_if=dict(type='list', elements='str', default=[]),
            txid=dict(type='str'),
            root=dict(type='path'),
            live_root=dict(type='bool', default=False),
            state_dir=dict(type='path'),
            profile_path=dict(type='list', elements='path', default=[]),
            binary=dict(type='str', default='hosttune'),
        ),
        required_if=[('state', 'applied', ['profile'])],
        supports_check_mode=True,
    )
    state = module.params['state']
    if state == 'applied':
        do_applied(module)
    elif state == 'verified':
        do_verified(module)
    elif state == 'budgeted':
        do_budgeted(module)
    else:
        do_rolled_back(module)


if __name__ == '__main__':
    main()

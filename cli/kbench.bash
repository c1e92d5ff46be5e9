# bash completion for kbench: verbs, each verb's options, kernel names,
# tags and workload keys. Installed by meson into bash-completion's
# completions directory as "kbench" (loaded on the first <TAB>). Verbs,
# options and workload keys are read from kbench's own --help, and kernel
# names and tags from the store the command line names (--store, --db, else
# $KBENCH_HOME and kbench's defaults), so the completion cannot drift from
# the tool or the store.

# kbench with the global options typed so far, so lists come from the same
# store the command will use. Errors (no store yet) complete nothing.
_kbench_call() {
        local i g=()
        for ((i = 1; i < cword; i++)); do
                case ${words[i]} in
                --store | --db) g+=("${words[i]}" "${words[i + 1]}") ;;
                --store=* | --db=*) g+=("${words[i]}") ;;
                esac
        done
        "${words[0]}" "${g[@]}" "$@" 2>/dev/null
}

# The long and short options of "kbench VERB [SUB] --help-all" (glib's
# layout: "  -k, --kernel=NAME   ..."), one per line: --help-all, so that
# bisect's group of run options is listed too.
_kbench_options() {
        _kbench_call "$@" --help-all | sed -n -e 's/^  \(-[A-Za-z]\), \(--[a-z][a-z0-9-]*\).*/\1\n\2/p' \
                -e 's/^  \(--[a-z][a-z0-9-]*\).*/\1/p'
}

_kbench_verbs() {
        _kbench_call --help | sed -n '/^Verbs:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p'
}

_kbench_kernels() {
        _kbench_call kernel list | sed -n '2,$s/^\([^ ]*\).*/\1/p'
}

# bisect --kernels K1,K2,...: kernel names after the last comma.
_kbench_kernel_list() {
        local head=${cur%"${cur##*,}"}
        COMPREPLY=($(compgen -P "$head" -W "$(_kbench_kernels)" -- "${cur##*,}"))
        [[ ${#COMPREPLY[@]} -eq 1 ]] && COMPREPLY=("${COMPREPLY[0]},") && compopt -o nospace
}

# bisect --good/--bad: the refs of the repository --git names on the line.
_kbench_git_refs() {
        local i dir=
        for ((i = 1; i < cword; i++)); do
                [[ ${words[i]} == --git ]] && dir=${words[i + 1]}
        done
        [[ -n $dir ]] || return
        COMPREPLY=($(compgen -W "$(git -C "$dir" for-each-ref --format='%(refname:short)' 2>/dev/null) HEAD" \
                -- "$cur"))
}

# Tags that make one shell word: compgen -W would split "nightly 2026-..."
# into two tags no run has.
_kbench_tags() {
        local t
        _kbench_call show --tags | while IFS= read -r t; do
                [[ $t != *[[:space:]]* ]] && printf '%s\n' "$t"
        done
}

# Readline replaces only what follows the last ':' or '=' of the word (both
# are in COMP_WORDBREAKS): strip that much of $cur from every reply.
_kbench_ltrim() {
        local pre=${cur%"${cur##*[:=]}"} i
        [[ -z $pre || $COMP_WORDBREAKS != *:* ]] && return
        for i in "${!COMPREPLY[@]}"; do
                COMPREPLY[i]=${COMPREPLY[i]#"$pre"}
        done
}

# -w NAME[:key=value,...]: workload names, then after "NAME:" the keys of
# that workload (the indented lines of its entry in kbench run --help).
_kbench_workload() {
        local help names keys w rest head
        help=$(_kbench_call run --help)
        names=$(sed -n '/^Workloads/,/^$/s/^  \([a-z][a-z0-9]*\)  .*/\1/p' <<<"$help")
        if [[ $cur != *:* ]]; then
                COMPREPLY=($(compgen -W "$names" -- "$cur"))
                [[ ${#COMPREPLY[@]} -eq 1 ]] && COMPREPLY=("${COMPREPLY[0]}:") && compopt -o nospace
                return
        fi
        w=${cur%%:*}
        rest=${cur#*:}
        head=${cur%"${rest##*,}"}
        keys=$(awk -v w="$w" '/^Workloads/ { on = 1; next }
                on && /^  [a-z]/ { cur = $1; next }
                on && /^      [a-z]/ && cur == w { print $1 "=" }
                on && /^$/ { on = 0 }' <<<"$help")
        COMPREPLY=($(compgen -P "$head" -W "$keys" -- "${rest##*,}"))
        compopt -o nospace
}

_kbench() {
        local cur prev words cword verb="" sub="" i
        _init_completion -n =: || return

        for ((i = 1; i < cword; i++)); do
                case ${words[i]} in
                --store | --db | --connect) ((i++)) ;;
                -*) ;;
                *)
                        if [[ -z $verb ]]; then
                                verb=${words[i]}
                        elif [[ $verb == kernel && -z $sub ]]; then
                                sub=${words[i]}
                        fi
                        ;;
                esac
        done

        case $prev in
        --store) _filedir -d; return ;;
        --db) _filedir db; return ;;
        --connect) return ;;
        -k | --kernel) COMPREPLY=($(compgen -W "$(_kbench_kernels)" -- "$cur")); return ;;
        --tag) COMPREPLY=($(compgen -W "$(_kbench_tags)" -- "$cur")); _kbench_ltrim; return ;;
        -w | --workload)
                if [[ $verb == run || $verb == bisect ]]; then
                        _kbench_workload
                        _kbench_ltrim
                        return
                fi
                ;;
        --accel) COMPREPLY=($(compgen -W "auto kvm tcg" -- "$cur")); return ;;
        --format)
                if [[ $verb == compare ]]; then
                        COMPREPLY=($(compgen -W "text markdown" -- "$cur"))
                fi
                return
                ;;
        --kernels) [[ $verb == bisect ]] && _kbench_kernel_list; return ;;
        --git) _filedir -d; return ;;
        --good | --bad) _kbench_git_refs; return ;;
        --fragment | --patch) _filedir; return ;;
        --config | --log | --cell | --name | --metric | --alpha | --noise | --ignore-setting | \
                --pilot | --max-rounds | --target | -j | --jobs | \
                -n | --repeat | --mem | --cpus | --disk-size | --disk-mbps | --fs | --mount-opts | \
                --swap | --append | --sysctl | --variant | --timeout | --hang-timeout | \
                --vmstat-interval | --retries | --max-contention | --resume | --interval | \
                --bo-threshold)
                [[ $prev == --config ]] && _filedir
                return
                ;;
        esac

        if [[ -z $verb ]]; then
                COMPREPLY=($(compgen -W "$(_kbench_verbs) --store --db --connect --help" -- "$cur"))
                return
        fi
        if [[ $verb == kernel && -z $sub ]]; then
                COMPREPLY=($(compgen -W "add build list remove" -- "$cur"))
                return
        fi
        if [[ $cur == -* ]]; then
                COMPREPLY=($(compgen -W "$(_kbench_options $verb $sub)" -- "$cur"))
                return
        fi
        case $verb in
        kernel)
                case $sub in
                add) _filedir ;;
                build) _filedir ;;
                remove) COMPREPLY=($(compgen -W "$(_kbench_kernels)" -- "$cur")) ;;
                esac
                ;;
        compare)
                local sels t
                sels="$(_kbench_kernels) run:"
                while IFS= read -r t; do
                        sels+=" tag:$t"
                done < <(_kbench_tags)
                COMPREPLY=($(compgen -W "$sels" -- "$cur"))
                _kbench_ltrim
                [[ ${COMPREPLY[*]} == run: ]] && compopt -o nospace
                ;;
        show) COMPREPLY=($(compgen -W "last" -- "$cur")) ;;
        vmstat) _filedir ;;
        esac
}
complete -F _kbench kbench

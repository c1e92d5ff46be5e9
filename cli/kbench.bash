# bash completion for kbench: verbs, each verb's options, kernel names,
# tags, run ids, cell keys, log streams, metric names and workload keys.
# Installed by meson into bash-completion's completions directory as
# "kbench" (loaded on the first <TAB>). Nothing here is a list of kbench's
# own: the options (and which of them take a value) come from the option
# tables through the hidden `kbench [VERB [SUB]] --complete-options`, verbs
# and workload keys from kbench's --help, and what the store holds from
# `kbench --complete runs|cells RUN|logs RUN CELL|metrics`, `kernel list`
# and `show --tags`, on the store the command line names (--store, --db,
# else $KBENCH_HOME and kbench's defaults), so the completion cannot drift
# from the tool or the store.

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

# The options of "kbench [VERB [SUB]]", one a line, "--name=" for one that
# takes a value (kbench's option tables: --complete-options).
_kbench_optlist() {
        "${words[0]}" "$@" --complete-options 2>/dev/null
}

_kbench_options() {
        _kbench_optlist "$@" | sed 's/=$//'
}

# Whether option $1 of "kbench $verb $sub" takes a value (before the verb:
# a global option).
_kbench_takes_value() {
        local opts
        if [[ -z $verb ]]; then
                opts=$(_kbench_optlist)
        else
                opts=$(_kbench_optlist $verb $sub)
        fi
        grep -qxF -- "$1=" <<<"$opts"
}

# The words of the command line after the verb (and kernel's command) that
# are neither options nor their values: show's RUN, compare's A and B.
_kbench_args() {
        local i opts w
        opts=$(_kbench_optlist $verb $sub)
        for ((i = verb_at + 1; i < cword; i++)); do
                w=${words[i]}
                [[ $verb == kernel ]] && ((i == verb_at + 1)) && continue
                if [[ $w == -* ]]; then
                        [[ $w != *=* ]] && grep -qxF -- "$w=" <<<"$opts" && ((i++))
                        continue
                fi
                printf '%s\n' "$w"
        done
}

# The value of option $1 (or $2) given on the line before the cursor.
_kbench_value_of() {
        local i
        for ((i = 1; i < cword - 1; i++)); do
                if [[ ${words[i]} == "$1" || ${words[i]} == "$2" ]]; then
                        printf '%s\n' "${words[i + 1]}"
                        return
                fi
        done
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

# Filesystems --fs takes: the mkfs.FS programs of this machine (kbench
# runs mkfs.FS on the host).
_kbench_filesystems() {
        compgen -c mkfs. | sed -n 's/^mkfs\.\([a-z0-9]*\)$/\1/p' | sort -u
}

_kbench() {
        local cur prev words cword verb="" sub="" verb_at=0 i run
        _init_completion -n =: || return

        for ((i = 1; i < cword; i++)); do
                case ${words[i]} in
                -*=*) ;;
                -*) [[ -z $verb ]] && _kbench_takes_value "${words[i]}" && ((i++)) ;;
                *)
                        if [[ -z $verb ]]; then
                                verb=${words[i]}
                                verb_at=$i
                        elif [[ $verb == kernel && -z $sub ]]; then
                                sub=${words[i]}
                        fi
                        ;;
                esac
        done

        # The value of an option: what it names, else nothing (no option
        # names where a value goes).
        if [[ $prev == -* && $cur != -* ]] && _kbench_takes_value "$prev"; then
                case $prev in
                --store) _filedir -d ;;
                --db) _filedir db ;;
                -k | --kernel) COMPREPLY=($(compgen -W "$(_kbench_kernels)" -- "$cur")) ;;
                --tag) COMPREPLY=($(compgen -W "$(_kbench_tags)" -- "$cur")); _kbench_ltrim ;;
                -w | --workload)
                        if [[ $verb == run || $verb == bisect ]]; then
                                _kbench_workload
                                _kbench_ltrim
                        fi
                        ;;
                --accel) COMPREPLY=($(compgen -W "auto kvm tcg" -- "$cur")) ;;
                --format) [[ $verb == compare ]] && COMPREPLY=($(compgen -W "text markdown" -- "$cur")) ;;
                --kernels) [[ $verb == bisect ]] && _kbench_kernel_list ;;
                --git | -o | --output) _filedir -d ;;
                --good | --bad) _kbench_git_refs ;;
                --fragment | --patch | --config) _filedir ;;
                --fs) COMPREPLY=($(compgen -W "$(_kbench_filesystems)" -- "$cur")) ;;
                --metric) COMPREPLY=($(compgen -W "$(_kbench_call --complete metrics)" -- "$cur")) ;;
                --resume) COMPREPLY=($(compgen -W "$(_kbench_call --complete runs)" -- "$cur")) ;;
                -c | --cell)
                        run=$(_kbench_args | head -n 1)
                        [[ -n $run ]] && COMPREPLY=($(compgen -W "$(_kbench_call --complete cells "$run")" -- "$cur"))
                        ;;
                -l | --log)
                        run=$(_kbench_args | head -n 1)
                        local cell=$(_kbench_value_of --cell -c)
                        [[ -n $run && -n $cell ]] &&
                                COMPREPLY=($(compgen -W "$(_kbench_call --complete logs "$run" "$cell")" -- "$cur"))
                        ;;
                esac
                return
        fi

        if [[ -z $verb ]]; then
                COMPREPLY=($(compgen -W "$(_kbench_verbs) $(_kbench_options)" -- "$cur"))
                return
        fi
        if [[ $verb == kernel && -z $sub ]]; then
                COMPREPLY=($(compgen -W "$(_kbench_call kernel --help | sed -n '/^Commands:/,/^$/s/^  \([a-z][a-z]*\) .*/\1/p')" \
                        -- "$cur"))
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
                if [[ $cur == run:* ]]; then
                        COMPREPLY=($(compgen -P run: -W "$(_kbench_call --complete runs | grep -v '^last$')" \
                                -- "${cur#run:}"))
                        _kbench_ltrim
                        return
                fi
                sels="$(_kbench_kernels) run:"
                while IFS= read -r t; do
                        sels+=" tag:$t"
                done < <(_kbench_tags)
                COMPREPLY=($(compgen -W "$sels" -- "$cur"))
                _kbench_ltrim
                [[ ${COMPREPLY[*]} == run: ]] && compopt -o nospace
                ;;
        show)
                [[ -z $(_kbench_args) ]] && COMPREPLY=($(compgen -W "$(_kbench_call --complete runs)" -- "$cur"))
                ;;
        vmstat) _filedir ;;
        esac
}
complete -F _kbench kbench

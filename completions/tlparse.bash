# bash completion for tlparse(1)                            -*- shell-script -*-
# SPDX-License-Identifier: BSD-3-Clause
# Installed as share/bash-completion/completions/tlparse. Needs nothing from the
# bash-completion package (uses its _command_offset for `--run -- CMD` when loaded).
# Keep the option list in step with `tlparse --help` (tests/install.sh checks it).

_tlparse()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= cword=$COMP_CWORD i
    ((cword > 0)) && prev=${COMP_WORDS[cword - 1]}
    local opts="--latest --overwrite --strict --strict-compile-id --no-browser
        --custom-header-html --verbose --plain-text --export --inductor-provenance
        --all-ranks-html --jobs --rank-only --rank --from-summaries --name-order --summary
        --json --progress --no-progress --fail-on --run --help --version
        -o -v -p -e -i -j -h -V"
    local kinds="graph-breaks recompiles failures specializations export any"
    COMPREPLY=()

    # --run [--] CMD [ARGS...]: the rest of the line is a command.
    for ((i = 1; i < cword; i++)); do
        [[ ${COMP_WORDS[i]} == -- ]] && break # `tlparse -- PATH`: no option follows
        [[ ${COMP_WORDS[i]} == --run ]] || continue
        local first=$((i + 1))
        if ((first < cword)) && [[ ${COMP_WORDS[first]} == -- ]]; then
            first=$((first + 1))
        elif ((first == cword)) && [[ $cur == -* ]]; then
            COMPREPLY=(--)
            return
        fi
        if ((cword > first)) && declare -F _command_offset >/dev/null; then
            _command_offset "$first"
        elif ((cword == first)); then
            mapfile -t COMPREPLY < <(compgen -c -- "$cur")
        else
            compopt -o filenames 2>/dev/null
            mapfile -t COMPREPLY < <(compgen -f -- "$cur")
        fi
        return
    done

    # An option's value: "--opt VALUE", "--opt=VALUE" (bash splits it at "=" into
    # "--opt" "=" "VALUE" with the default COMP_WORDBREAKS, or keeps it whole).
    local opt= val= pre=
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*} val=${cur#*=} pre="$opt="
    elif [[ $cur == = && $prev == --* ]]; then
        opt=$prev
    elif [[ $prev == = ]] && ((cword > 1)); then
        opt=${COMP_WORDS[cword - 2]} val=$cur
    else
        opt=$prev val=$cur
    fi
    case $opt in
    --fail-on)
        # A comma-separated list: complete its last item.
        local head=
        [[ $val == *,* ]] && head=${val%,*},
        mapfile -t COMPREPLY < <(compgen -P "$pre$head" -W "$kinds" -- "${val##*,}")
        return
        ;;
    -o)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$val")
        return
        ;;
    -j | --jobs)
        mapfile -t COMPREPLY < <(compgen -P "$pre" -W "$(seq 1 "$(nproc 2>/dev/null || echo 1)")" -- "$val")
        return
        ;;
    --rank | --custom-header-html)
        return
        ;;
    esac

    if [[ $cur == -* ]]; then
        local o
        for o in $opts; do
            [[ $o == "$cur"* ]] && COMPREPLY+=("$o")
        done
        return
    fi
    # PATH: a log file or a folder of logs (or - for standard input).
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}
complete -F _tlparse tlparse

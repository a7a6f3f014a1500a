# bash completion for tlparse(1)                            -*- shell-script -*-
# SPDX-License-Identifier: BSD-3-Clause
# Installed as share/bash-completion/completions/tlparse. Needs nothing from the
# bash-completion package (uses its _command_offset for `--run -- CMD` when loaded).
# Keep the option lists in step with `tlparse --help` and `tlparse diff --help`
# (tests/install.sh checks them).

# The option being given a value, as opt, the value so far as val, and what goes before the
# candidates as pre: "--opt VALUE", "--opt=VALUE" (bash splits it at "=" into "--opt" "="
# "VALUE" with the default COMP_WORDBREAKS, or keeps it whole). Sets the caller's locals.
__tlparse_value()
{
    opt="" val="" pre=""
    if [[ $cur == --*=* ]]; then
        opt=${cur%%=*} val=${cur#*=} pre="$opt="
    elif [[ $cur == = && $prev == --* ]]; then
        opt=$prev
    elif [[ $prev == = ]] && ((cword > 1)); then
        opt=${COMP_WORDS[cword - 2]} val=$cur
    else
        opt=$prev val=$cur
    fi
}

# A comma-separated list of words: complete its last item (a "word:" is completed without
# a space after it, for its value).
__tlparse_list()
{
    local head=
    [[ $val == *,* ]] && head=${val%,*},
    mapfile -t COMPREPLY < <(compgen -P "$pre$head" -W "$1" -- "${val##*,}")
    if ((${#COMPREPLY[@]} == 1)) && [[ ${COMPREPLY[0]} == *: ]]; then
        compopt -o nospace 2>/dev/null
    fi
}

# tlparse diff [OPTIONS] BEFORE AFTER (COMP_WORDS[1] is "diff")
_tlparse_diff()
{
    local opts="--overwrite --summary --json --fail-on --no-browser --help -o -h"
    local kinds="new-failures new-recompiles new-graph-breaks new-specializations new slower:"
    local opt val pre
    __tlparse_value
    case $opt in
    --fail-on)
        __tlparse_list "$kinds"
        return
        ;;
    -o)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$val")
        return
        ;;
    esac
    # "slower:PCT": bash splits the word at ":"; the number is not completed
    if [[ $cur == : && $prev == *slower ]] ||
        { [[ $prev == : ]] && ((cword > 2)) && [[ ${COMP_WORDS[cword - 2]} == *slower ]]; }; then
        return
    fi
    # BEFORE and AFTER given already (an option's value is no side): nothing more but options
    local i w n=0 dashdash=
    for ((i = 2; i < cword; i++)); do
        w=${COMP_WORDS[i]}
        if [[ -z $dashdash && $w == -- ]]; then
            dashdash=1
        elif [[ -z $dashdash && ($w == -o || $w == --fail-on) ]]; then
            ((i++))
            [[ ${COMP_WORDS[i]} == = ]] && ((i++)) # "--fail-on" "=" "VALUE"
        elif [[ -z $dashdash && $w == -?* ]]; then
            continue # an option, or one with its value: --fail-on=KINDS, -oOUT
        elif [[ $w == [=:,] || ${COMP_WORDS[i - 1]} == [=:,] ]]; then
            continue # the pieces of a value bash split at "=" or ":"
        else
            n=$((n + 1))
        fi
    done
    if [[ -z $dashdash && $cur == -* ]]; then
        local o
        for o in $opts; do
            [[ $o == "$cur"* ]] && COMPREPLY+=("$o")
        done
        return
    fi
    ((n >= 2)) && return
    # BEFORE, AFTER: a log, a folder of logs, a summary.json or a report folder
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
}

_tlparse()
{
    local cur=${COMP_WORDS[COMP_CWORD]} prev= cword=$COMP_CWORD i
    ((cword > 0)) && prev=${COMP_WORDS[cword - 1]}
    local opts="--latest --bundle --redact --redact=paths --overwrite --strict --strict-compile-id --no-browser
        --custom-header-html --verbose --plain-text --export --inductor-provenance
        --all-ranks-html --jobs --rank-only --rank --rank-failed --from-summaries --name-order --summary
        --json --progress --no-progress --fail-on --run --watch --serve --port --bind --help --version
        -o -v -p -e -i -j -h -V"
    local kinds="graph-breaks recompiles failures specializations export eager any"
    COMPREPLY=()

    if ((cword > 1)) && [[ ${COMP_WORDS[1]} == diff ]]; then
        _tlparse_diff
        return
    fi

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

    # An option's value
    local opt val pre
    __tlparse_value
    case $opt in
    --fail-on)
        __tlparse_list "$kinds"
        return
        ;;
    -o)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -d -- "$val")
        return
        ;;
    --bundle)
        # a .zip or .html file (and folders, to get there)
        compopt -o filenames 2>/dev/null
        mapfile -t COMPREPLY < <(compgen -P "$pre" -f -X '!*.zip' -- "$val"
            compgen -P "$pre" -f -X '!*.html' -- "$val"
            compgen -P "$pre" -d -- "$val")
        return
        ;;
    -j | --jobs)
        mapfile -t COMPREPLY < <(compgen -P "$pre" -W "$(seq 1 "$(nproc 2>/dev/null || echo 1)")" -- "$val")
        return
        ;;
    --rank | --rank-failed | --custom-header-html | --port)
        return
        ;;
    --bind)
        mapfile -t COMPREPLY < <(compgen -P "$pre" -W "127.0.0.1 ::1 0.0.0.0" -- "$val")
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
    # PATH: a log file or a folder of logs (or - for standard input); first, or "diff"
    compopt -o filenames 2>/dev/null
    mapfile -t COMPREPLY < <(compgen -f -- "$cur")
    local sub=diff
    ((cword == 1)) && [[ $sub == "$cur"* ]] && COMPREPLY+=("$sub")
}
complete -F _tlparse tlparse

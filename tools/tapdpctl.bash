# SPDX-License-Identifier: Apache-2.0
# bash completion for tapdpctl: its options, commands and their options.
_tapdpctl() {
	local cur prev cmd i
	cur=${COMP_WORDS[COMP_CWORD]}
	prev=${COMP_WORDS[COMP_CWORD - 1]}
	for ((i = 1; i < COMP_CWORD; i++)); do
		case ${COMP_WORDS[i]} in
		--socket) ((i++)) ;;
		-*) ;;
		*) cmd=${COMP_WORDS[i]}; break ;;
		esac
	done
	if [ "$prev" = --socket ]; then
		COMPREPLY=($(compgen -f -- "$cur"))
		return
	fi
	case $cmd in
	"")
		COMPREPLY=($(compgen -W "--json --socket --help status drops upcalls flows trace capture nlmon" \
			-- "$cur")) ;;
	capture)
		case $prev in
		-w) COMPREPLY=($(compgen -f -- "$cur")) ;;
		--count|--timeout) COMPREPLY=() ;;
		*) COMPREPLY=($(compgen -W "all upcalls drops -w --count --timeout" \
			-- "$cur")) ;;
		esac ;;
	nlmon)
		case $prev in
		-w) COMPREPLY=($(compgen -f -- "$cur")) ;;
		--count|--timeout) COMPREPLY=() ;;
		*) COMPREPLY=($(compgen -W "-w --count --timeout" -- "$cur")) ;;
		esac ;;
	trace)
		case $prev in
		--pcap) COMPREPLY=($(compgen -f -- "$cur")) ;;
		*) COMPREPLY=($(compgen -W "--pcap" -- "$cur")) ;;
		esac ;;
	flows)
		case $prev in
		--rate) COMPREPLY=() ;;
		*) COMPREPLY=($(compgen -W "--rate" -- "$cur")) ;;
		esac ;;
	upcalls|drops)
		case $prev in
		--count|--timeout) COMPREPLY=() ;;
		*) COMPREPLY=($(compgen -W "--follow --count --timeout" \
			-- "$cur")) ;;
		esac ;;
	*)
		COMPREPLY=() ;;
	esac
}
complete -F _tapdpctl tapdpctl

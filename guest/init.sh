#!/bin/sh
# /init of the lab's guest (busybox). Mounts the basics, then either runs
# the step's programs listed in /lab/programs (lab.mode=demo) or gives a
# shell (lab.mode=shell), and powers off: QEMU runs with -no-reboot.

/bin/busybox --install -s /bin
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
mount -t tmpfs tmpfs /tmp

step=0
mode=demo
read -r cmdline </proc/cmdline
for arg in $cmdline; do
	case $arg in
	lab.step=*) step=${arg#lab.step=} ;;
	lab.mode=*) mode=${arg#lab.mode=} ;;
	esac
done

# Every program gets its own name as the kernel will see it (comm): a
# copy named as /lab/programs says, e.g. automount or automount.new.
install_as() { # abi program name
	mkdir -p "/tmp/run/$1"
	cp "/lab/$1/$2" "/tmp/run/$1/$3"
	echo "/tmp/run/$1/$3"
}

run_demo() {
	echo "LAB-BEGIN step=$step kernel=$(uname -r) machine=$(uname -m)"
	grep -v '^#' /lab/programs | while read -r prog abi name; do
		[ -n "$prog" ] || continue
		path=$(install_as "$abi" "$prog" "$name")
		echo
		echo "\$ $name --step $step        # $prog, $abi build"
		timeout 30 "$path" --step "$step" </dev/null
		rc=$?
		if [ $rc -ge 124 ]; then
			# The program did not finish: report that ourselves.
			echo "RESULT step=$step reader=$prog abi=$abi comm=$name verdict=broken detail=\"killed by the guest's 30 s timeout\""
			umount -l /auto 2>/dev/null
		fi
	done
	echo
	echo "LAB-END step=$step"
}

run_shell() {
	mkdir -p /lab/bin
	for abi in i386 x86_64; do
		for prog in "/lab/$abi"/*; do
			ln -s "$prog" "/lab/bin/${prog##*/}-$abi"
		done
	done
	# the 32-bit daemon under the names step 3 cares about
	cp /lab/i386/automount-style /lab/bin/automount
	cp /lab/i386/automount-style /lab/bin/automount.new
	cat <<MSG

autofs ABI lab, step $step, kernel $(uname -r). Demo programs in /lab/bin:
$(cd /lab/bin && echo *)
Try: automount --step $step ; systemd-style-i386 --step $step
The name you run a program by is the name the kernel sees (comm).
Leave with: exit (or Ctrl-D); the guest powers off.
MSG
	PATH=/lab/bin:/bin setsid cttyhack sh -l
}

case $mode in
shell) run_shell ;;
*) run_demo ;;
esac
sync
reboot -f

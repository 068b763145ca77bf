#!/usr/bin/env bash
# A single-node Slurm cluster on loopback for the batch tests (Debian 12's Slurm 22.05 and munge): installs the
# packages when missing, starts munged, slurmctld and slurmd with a slurm.conf in DIR, and stops them again.
# The daemons run as root (sudo when this is not root, as installer/install-deps.sh does). Usage:
#   scripts/slurm-cluster.sh start DIR    prints the SLURM_CONF to export
#   scripts/slurm-cluster.sh stop DIR
set -euo pipefail
cmd=${1:?start or stop}; dir=${2:?DIR}
mkdir -p "$dir"
dir=$(cd "$dir" && pwd)
SUDO=""
[[ $(id -u) -eq 0 ]] || SUDO="sudo"
if [[ $cmd == stop ]]; then
  for p in slurmd slurmctld munged; do [[ -f $dir/$p.pid ]] && $SUDO kill "$(cat "$dir/$p.pid")" 2>/dev/null || true; done
  exit 0
fi
PATH=$PATH:/usr/sbin:/sbin
if ! command -v slurmctld >/dev/null || ! command -v munged >/dev/null || ! command -v sbatch >/dev/null; then
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd slurm-client munge > "$dir/apt.log" 2>&1 ||
    { $SUDO apt-get update -qq && $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q slurmctld slurmd slurm-client munge > "$dir/apt.log" 2>&1; }
fi
# munge: a key, its socket folder, the daemon as user munge.
$SUDO test -f /etc/munge/munge.key || $SUDO mungekey -c -f -k /etc/munge/munge.key
$SUDO chown munge:munge /etc/munge/munge.key; $SUDO chmod 400 /etc/munge/munge.key
$SUDO mkdir -p /run/munge /var/log/munge /var/lib/munge; $SUDO chown munge:munge /run/munge /var/log/munge /var/lib/munge
if ! munge -n 2>/dev/null | unmunge >/dev/null 2>&1; then
  $SUDO su -s /bin/sh munge -c munged
  for _ in $(seq 50); do munge -n 2>/dev/null | unmunge >/dev/null 2>&1 && break; sleep 0.1; done
fi
host=$(hostname -s)
cat > "$dir/slurm.conf" <<CONF
ClusterName=worldstudio
SlurmctldHost=$host(127.0.0.1)
AuthType=auth/munge
SlurmUser=root
SlurmdUser=root
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd.pid
SlurmctldLogFile=$dir/slurmctld.log
SlurmdLogFile=$dir/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
JobCompType=jobcomp/filetxt
JobCompLoc=$dir/jobcomp.txt
ReturnToService=2
MinJobAge=600
NodeName=localhost NodeAddr=127.0.0.1 CPUs=$(nproc) State=UNKNOWN
PartitionName=batch Nodes=localhost Default=YES MaxTime=INFINITE State=UP
CONF
mkdir -p "$dir/state" "$dir/spool"
export SLURM_CONF=$dir/slurm.conf
$SUDO env SLURM_CONF="$SLURM_CONF" slurmctld -c
$SUDO env SLURM_CONF="$SLURM_CONF" slurmd
for _ in $(seq 100); do sinfo -h -o '%t' 2>/dev/null | grep -q idle && break; sleep 0.2; done
sinfo -h -o '%t' | grep -q idle || { echo "slurm-cluster: the node did not come up (see $dir/*.log)" >&2; exit 1; }
echo "$SLURM_CONF"

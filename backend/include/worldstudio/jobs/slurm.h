#pragma once
// Batch files on a Slurm cluster: the samples sharded into JSONL files beside the outputs, one job array whose task
// i runs `worldstudio-cli batch shard_i.jsonl -o DIR --resume` (so every task writes the same layout as a local run,
// and a task run again does only what is missing or failed), tracked with squeue, cancelled with scancel. The
// commands run locally or, with `ssh`, on a login node that sees the same folders.
#include <functional>
#include <string>
#include <vector>

#include "worldstudio/jobs/batch.h"

namespace ws {

struct SlurmOptions {
    std::string cli;                    // the worldstudio-cli the tasks run (the same build)
    std::vector<std::string> cli_args;  // passed on to each task (--model, --device, ...)
    int shards = 4;                     // at most; fewer when there are fewer samples
    int max_running = 2;                // the array's %K
    std::string ssh;                    // "" runs sbatch/squeue/scancel here, else "ssh HOST" before each
    std::vector<std::string> sbatch_args;  // more sbatch options (--partition, --gres, --time, ...)
};

struct SlurmTask {
    int shard = 0;
    std::string state;   // PENDING, RUNNING, COMPLETED, FAILED, CANCELLED, ...
    std::string reason;  // squeue's reason (JobArrayTaskLimit, NonZeroExitCode, ...)
    bool finished() const;
};

// Writes DIR/.slurm/ (shard_I.jsonl, task.sh, job.json) and submits one array; with `resume`, only the shards that
// hold a sample whose status is not "success". Returns the job id, or "" when nothing was left to run. Throws
// ws::Error with sbatch's message when it refuses.
std::string submit_slurm_batch(const BatchInput& input, const std::string& out_dir, const SlurmOptions& options, bool resume);
// The array's tasks as squeue lists them (finished tasks stay listed for the cluster's MinJobAge).
std::vector<SlurmTask> slurm_tasks(const std::string& job_id, const SlurmOptions& options);
// The job id of the last submission into DIR ("" when none).
std::string slurm_job_of(const std::string& out_dir);
// Cancels one shard's task (shard >= 0) or the whole array of the last submission into DIR.
void cancel_slurm_batch(const std::string& out_dir, int shard, const SlurmOptions& options);
// Polls until every task has finished, calling `on_change` when a task's state changes; returns the last states.
std::vector<SlurmTask> wait_for_slurm_batch(const std::string& job_id, const SlurmOptions& options,
                                            const std::function<void(const SlurmTask&)>& on_change, double poll_seconds = 1.0);

}  // namespace ws

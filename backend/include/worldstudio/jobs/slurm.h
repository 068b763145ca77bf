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
    std::string cli;                       // the worldstudio-cli the tasks run (the same build)
    std::vector<std::string> cli_args;     // passed on to each task (--model, --device, ...)
    int shards = 4;                        // at most; fewer when there are fewer samples
    int max_running = 2;                   // the array's %K
    std::string ssh;                       // "" runs sbatch/squeue/scancel here, else "ssh HOST" before each
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
std::string submit_slurm_batch(const BatchInput& input, const std::string& out_dir, const SlurmOptions& options,
                               bool resume);
// The samples of the batch submitted into DIR, in their first order (the shards dealt back), so that a resume can
// be sent from the folder alone. Throws ws::Error when DIR holds no submission.
BatchInput slurm_batch_input(const std::string& out_dir);
// The array's tasks as squeue lists them (finished tasks stay listed for the cluster's MinJobAge).
std::vector<SlurmTask> slurm_tasks(const std::string& job_id, const SlurmOptions& options);
// The job id of the last submission into DIR ("" when none).
std::string slurm_job_of(const std::string& out_dir);
// Cancels one shard's task (shard >= 0) or the whole array of the last submission into DIR.
void cancel_slurm_batch(const std::string& out_dir, int shard, const SlurmOptions& options);

struct SlurmShardStatus {
    int shard = 0;
    std::vector<std::string> samples;   // names, in the shard's order
    std::vector<std::string> statuses;  // each sample's batch_sample_status at this look, in the same order
    int succeeded = 0, failed = 0;  // samples whose sample_outputs.json says success / error (the rest: not run yet)
    bool submitted = false;         // in the last submission's array (a resume leaves finished shards out)
    std::string state, reason;      // squeue's, or the last seen once it lists the task no more; "" before it has
    bool finished() const;          // not submitted, or its task has finished or left the queue
};

struct SlurmBatchStatus {
    std::string job_id;
    std::vector<SlurmShardStatus> shards;
    int looks = 0;          // squeue calls so far (with the previous status's)
    bool finished() const;  // every shard finished
    int samples() const;
    int succeeded() const;
    int failed() const;
};

// One look at the last submission into DIR: squeue's state for each shard's task and its samples' statuses on
// disk. `previous` (the last look, or empty) carries what squeue no longer lists: a finished task's last state
// (aged out after the cluster's MinJobAge); a task that was waiting or running and is gone was cancelled before it
// could report (squeue keeps no record of a task cancelled while pending). A task squeue never listed (a folder
// looked at long after its run) counts as finished after a few looks, its samples telling what it did.
SlurmBatchStatus slurm_batch_status(const std::string& out_dir, const SlurmOptions& options,
                                    const SlurmBatchStatus& previous = {});

// Looks every `poll_seconds` until every shard has finished, calling `on_change` when a shard's state changes;
// returns the last look.
SlurmBatchStatus wait_for_slurm_batch(const std::string& out_dir, const SlurmOptions& options,
                                      const std::function<void(const SlurmShardStatus&)>& on_change,
                                      double poll_seconds = 1.0);

}  // namespace ws

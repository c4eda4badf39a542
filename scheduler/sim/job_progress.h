// What a job has done, for restarts after an interruption or a preemption (simulator.h
// SimFaults): the useful work saved by its last checkpoint, and its current run (from
// start_s: restart_s of reloading, then the work not yet saved). Seconds at the trace's
// reference speed.
#ifndef TOPOPLACE_SCHEDULER_SIM_JOB_PROGRESS_H_
#define TOPOPLACE_SCHEDULER_SIM_JOB_PROGRESS_H_

namespace topoplace::sched::sim {

struct JobProgress {
  double checkpointed = 0;
  double restart_s = 0;
  double work = 0;  // restart_s + duration - checkpointed
  double start_s = 0;
};

// The useful work after `done` seconds of the current run: the checkpointed work plus what
// the run did past its restart, at most the run's work.
double UsefulWork(const JobProgress& p, double done);

// What the last checkpoint saved of `useful`: whole checkpoint intervals, never less than
// saved before; everything with `interval` 0.
double SavedWork(const JobProgress& p, double useful, double interval);

}  // namespace topoplace::sched::sim

#endif  // TOPOPLACE_SCHEDULER_SIM_JOB_PROGRESS_H_

-- job_submit.lua for topoplace: when spank_topoplace.so defers a job it cannot place yet
-- (its GPUs or its hard max_tier are not free), it leaves three job control variables;
-- this script turns them into what sbatch would have sent for
-- `--nodes=N --switches=1@SECONDS` (and N times --ntasks-per-node tasks), so Slurm queues the job for the spec's node count and,
-- for a hard block tier, inside one leaf switch (a block in topoplace's export) for at
-- most max_wait. When the job starts, the plugin maps its ranks onto the nodes Slurm gave.
--
-- Install next to slurm.conf as job_submit.lua with JobSubmitPlugins=lua. If the site has
-- its own job_submit.lua, call topoplace_job_submit(job_desc) from its slurm_job_submit.

-- The value of job control variable `name` (entries are "NAME=value", with or without
-- Slurm's SPANK_ prefix; the table starts at index 0, hence pairs).
local function spank_value(job_desc, name)
  local env = job_desc.spank_job_env
  if env == nil then return nil end
  for _, entry in pairs(env) do
    local value = string.match(entry, "^" .. name .. "=(.*)$") or
                  string.match(entry, "^SPANK_" .. name .. "=(.*)$")
    if value ~= nil then return value end
  end
  return nil
end

function topoplace_job_submit(job_desc)
  local nodes = tonumber(spank_value(job_desc, "TOPOPLACE_NODES") or "")
  if nodes == nil then return slurm.SUCCESS end
  job_desc.min_nodes = nodes
  job_desc.max_nodes = nodes
  -- sbatch counted the tasks of --ntasks-per-node for the one node it assumed.
  local per_node = job_desc.ntasks_per_node
  if per_node ~= nil and per_node ~= slurm.NO_VAL16 and per_node > 0 then
    job_desc.num_tasks = nodes * per_node
    local per_task = job_desc.cpus_per_task
    if per_task == nil or per_task == slurm.NO_VAL16 or per_task < 1 then per_task = 1 end
    local cpus = job_desc.num_tasks * per_task
    if job_desc.min_cpus == nil or job_desc.min_cpus == slurm.NO_VAL or
       job_desc.min_cpus < cpus then
      job_desc.min_cpus = cpus
    end
  end
  local switches = spank_value(job_desc, "TOPOPLACE_SWITCHES")
  if switches ~= nil then
    local count, wait = string.match(switches, "^(%d+)@(%d+)$")
    if count == nil then count = string.match(switches, "^(%d+)$") end
    if count == nil then
      slurm.log_user("topoplace: ignored TOPOPLACE_SWITCHES=%s (expected N or N@SECONDS)",
                     switches)
      return slurm.SUCCESS
    end
    job_desc.req_switch = tonumber(count)
    if wait ~= nil then job_desc.wait4switch = tonumber(wait) end
  end
  slurm.log_info("topoplace: job of %s deferred: %d nodes, switches %s",
                 tostring(job_desc.user_name), nodes, switches or "none")
  return slurm.SUCCESS
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  return topoplace_job_submit(job_desc)
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS

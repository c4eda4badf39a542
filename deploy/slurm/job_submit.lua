-- job_submit.lua for topoplace: when spank_topoplace.so defers a job it cannot place yet
-- (its GPUs or its hard max_tier are not free), it leaves three job control variables;
-- this script turns them into what sbatch would have sent for
-- `--nodes=N --switches=1@SECONDS`, so Slurm queues the job for the spec's node count and,
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

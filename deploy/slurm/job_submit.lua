-- job_submit.lua for topoplace: when spank_topoplace.so defers a job it cannot place yet
-- (its GPUs or its hard max_tier are not free), it leaves three job control variables;
-- this script turns them into what sbatch would have sent for
-- `--nodes=N --switches=1@SECONDS [--segment=K]` (and N times --ntasks-per-node tasks), so Slurm queues the job for the spec's node count and,
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

-- `text` as a whole number in [lo, hi], or nil: digits only, so no sign, fraction,
-- exponent, "inf" or "nan" reaches Slurm's unsigned counts (the submitting client writes
-- the job control environment, so these values are the user's).
local function whole(text, lo, hi)
  if text == nil or string.match(text, "^%d+$") == nil or #text > 10 then return nil end
  local n = tonumber(text)
  if n < lo or n > hi then return nil end
  return n
end

local MAX_NODES = 16777216       -- topoplace's largest job is 2^24 GPUs
local MAX_COUNT = 4294967293     -- below Slurm's NO_VAL (0xfffffffe) for 32-bit counts
local MAX_SWITCH_WAIT = 31536000 -- a year, in seconds

local function refuse(what, value, expected)
  slurm.log_user("topoplace: %s=%s: expected %s; job refused", what, tostring(value), expected)
  return slurm.ERROR
end

function topoplace_job_submit(job_desc)
  local nodes_text = spank_value(job_desc, "TOPOPLACE_NODES")
  if nodes_text == nil then return slurm.SUCCESS end
  local nodes = whole(nodes_text, 1, MAX_NODES)
  if nodes == nil then
    return refuse("TOPOPLACE_NODES", nodes_text, "a whole number of nodes from 1 to " .. MAX_NODES)
  end
  -- sbatch counted the tasks of --ntasks-per-node for the one node it assumed.
  local per_node = job_desc.ntasks_per_node
  local tasks, cpus = nil, nil
  if per_node ~= nil and per_node ~= slurm.NO_VAL16 and per_node > 0 then
    tasks = nodes * per_node
    local per_task = job_desc.cpus_per_task
    if per_task == nil or per_task == slurm.NO_VAL16 or per_task < 1 then per_task = 1 end
    cpus = tasks * per_task
    if cpus > MAX_COUNT then
      return refuse("TOPOPLACE_NODES", nodes_text,
                    "at most " .. MAX_COUNT .. " tasks and CPUs in all")
    end
  end
  local switches = spank_value(job_desc, "TOPOPLACE_SWITCHES")
  local count, wait = nil, nil
  if switches ~= nil then
    local count_text, wait_text = string.match(switches, "^(%d+)@(%d+)$")
    if count_text == nil then count_text = switches end
    count = whole(count_text, 1, 65535)
    if wait_text ~= nil then wait = whole(wait_text, 0, MAX_SWITCH_WAIT) end
    if count == nil or (wait_text ~= nil and wait == nil) then
      return refuse("TOPOPLACE_SWITCHES", switches,
                    "N or N@SECONDS (N from 1 to 65535, at most " .. MAX_SWITCH_WAIT .. " s)")
    end
  end
  local segment_text = spank_value(job_desc, "TOPOPLACE_SEGMENT")
  local segment = nil
  if segment_text ~= nil then
    segment = whole(segment_text, 1, MAX_NODES)
    if segment == nil or nodes % segment ~= 0 then
      return refuse("TOPOPLACE_SEGMENT", segment_text,
                    "a whole number of nodes that divides TOPOPLACE_NODES=" .. nodes)
    end
  end
  -- Every value checked: only now is the job changed.
  job_desc.min_nodes = nodes
  job_desc.max_nodes = nodes
  if tasks ~= nil then
    job_desc.num_tasks = tasks
    if job_desc.min_cpus == nil or job_desc.min_cpus == slurm.NO_VAL or
       job_desc.min_cpus < cpus then
      job_desc.min_cpus = cpus
    end
  end
  if count ~= nil then
    job_desc.req_switch = count
    if wait ~= nil then job_desc.wait4switch = wait end
  end
  -- Slurm 25.05+ has segment_size (topology/block's --segment); older ones read nil and
  -- ignore the field. A segment the user asked for with --segment is theirs to keep.
  local own = job_desc.segment_size
  if segment ~= nil and (own == nil or own == 0 or own == slurm.NO_VAL16) then
    job_desc.segment_size = segment
  end
  slurm.log_info("topoplace: job of %s deferred: %d nodes, switches %s, segment %s",
                 tostring(job_desc.user_name), nodes, switches or "none",
                 segment_text or "none")
  return slurm.SUCCESS
end

function slurm_job_submit(job_desc, part_list, submit_uid)
  return topoplace_job_submit(job_desc)
end

function slurm_job_modify(job_desc, job_rec, part_list, modify_uid)
  return slurm.SUCCESS
end

return slurm.SUCCESS

-- SPDX-License-Identifier: Apache-2.0
-- A Wireshark dissector for the Open vSwitch datapath's generic netlink
-- families (ovs_datapath, ovs_vport, ovs_flow, ovs_packet, ovs_meter,
-- ovs_ct_limit), for what `tapdpctl nlmon -w FILE` writes and an nlmon
-- device captures: each message's command by name, its datapath, and its
-- attributes by name with their values, flow keys, masks, actions and
-- tunnel keys nested as they are sent; a packet's frame handed to the
-- Ethernet dissector.
--
--   tshark -X lua_script:/usr/share/tapdp/wireshark-ovs.lua -r FILE -V
--
-- Wireshark's generic netlink dissector names the families from a
-- CTRL_CMD_NEWFAMILY in the capture (tapdpctl's file opens with them) and
-- hands each message of a family of this name here, from its generic
-- netlink header on. Filter fields: ovs.family, ovs.cmd, ovs.cmd_name,
-- ovs.dp_ifindex, ovs.attr (every attribute's name), ovs.key.in_port,
-- ovs.ufid, ovs.action.output.

local ovs = Proto("ovs", "Open vSwitch datapath")
local F = {
	family = ProtoField.string("ovs.family", "Family"),
	cmd = ProtoField.uint8("ovs.cmd", "Command"),
	cmd_name = ProtoField.string("ovs.cmd_name", "Command name"),
	dp_ifindex = ProtoField.int32("ovs.dp_ifindex", "Datapath ifindex"),
	attr = ProtoField.string("ovs.attr", "Attribute"),
	in_port = ProtoField.uint32("ovs.key.in_port", "In port"),
	ufid = ProtoField.bytes("ovs.ufid", "UFID"),
	output = ProtoField.uint32("ovs.action.output", "Output port"),
}
ovs.fields = { F.family, F.cmd, F.cmd_name, F.dp_ifindex, F.attr,
	       F.in_port, F.ufid, F.output }

local eth_dissector = Dissector.get("eth_withoutfcs")

-- Sizes of the value kinds; "str", "flag", "bytes" and nests take the
-- attribute's whole payload.
local SIZE = { u8 = 1, u16 = 2, be16 = 2, x16 = 2, u32 = 4, x32 = 4,
	       be32 = 4, s32 = 4,
	       u64 = 8, be64 = 8, mac = 6, ip4 = 4, ip6 = 16 }

-- A value of kind at r (a TvbRange) as text. Netlink's own integers are
-- in host order (little-endian here), the packet fields in network order;
-- x16 (network order) and x32 (host order) are written in hex, as
-- ovs-dpctl writes Ethernet types, TCI, TCP flags and ct states.
local function value(kind, r)
	if kind == "x16" then
		return string.format("0x%04x", r:uint())
	elseif kind == "x32" then
		return string.format("0x%x", r:le_uint())
	elseif kind == "u8" or kind == "be16" or kind == "be32" then
		return tostring(r:uint())
	elseif kind == "u16" or kind == "u32" then
		return tostring(r:le_uint())
	elseif kind == "s32" then
		return tostring(r:le_int())
	elseif kind == "u64" then
		return tostring(r:le_uint64())
	elseif kind == "be64" then
		return tostring(r:uint64())
	elseif kind == "mac" then
		-- (Not r:ether(), which writes a vendor's name for its prefix.)
		local b = {}
		for i = 0, 5 do b[#b + 1] = string.format("%02x", r(i, 1):uint()) end
		return table.concat(b, ":")
	elseif kind == "ip4" then
		return tostring(r:ipv4())
	elseif kind == "ip6" then
		return tostring(r:ipv6())
	elseif kind == "ip" then
		if r:len() == 4 then return tostring(r:ipv4()) end
		if r:len() == 16 then return tostring(r:ipv6()) end
	elseif kind == "str" then
		return r:stringz()
	end
	return r:bytes():tohex()
end

-- Structures: lists of { field name, kind }.
local S = {
	dp_stats = { { "hit", "u64" }, { "missed", "u64" }, { "lost", "u64" },
		     { "flows", "u64" } },
	megaflow_stats = { { "mask_hit", "u64" }, { "masks", "u32" },
			   { "pad", "u32" }, { "cache_hits", "u64" },
			   { "pad", "u64" } },
	vport_stats = { { "rx_packets", "u64" }, { "tx_packets", "u64" },
			{ "rx_bytes", "u64" }, { "tx_bytes", "u64" },
			{ "rx_errors", "u64" }, { "tx_errors", "u64" },
			{ "rx_dropped", "u64" }, { "tx_dropped", "u64" } },
	flow_stats = { { "packets", "u64" }, { "bytes", "u64" } },
	ethernet = { { "src", "mac" }, { "dst", "mac" } },
	ipv4 = { { "src", "ip4" }, { "dst", "ip4" }, { "proto", "u8" },
		 { "tos", "u8" }, { "ttl", "u8" }, { "frag", "u8" } },
	ipv6 = { { "src", "ip6" }, { "dst", "ip6" }, { "label", "be32" },
		 { "proto", "u8" }, { "tclass", "u8" }, { "hlimit", "u8" },
		 { "frag", "u8" } },
	ports = { { "src", "be16" }, { "dst", "be16" } },
	icmp = { { "type", "u8" }, { "code", "u8" } },
	arp = { { "sip", "ip4" }, { "tip", "ip4" }, { "op", "be16" },
		{ "sha", "mac" }, { "tha", "mac" } },
	nd = { { "target", "ip6" }, { "sll", "mac" }, { "tll", "mac" } },
	mpls = { { "lse", "be32" } },
	tuple4 = { { "src", "ip4" }, { "dst", "ip4" }, { "src_port", "be16" },
		   { "dst_port", "be16" }, { "proto", "u8" } },
	tuple6 = { { "src", "ip6" }, { "dst", "ip6" }, { "src_port", "be16" },
		   { "dst_port", "be16" }, { "proto", "u8" } },
	push_vlan = { { "tpid", "x16" }, { "tci", "x16" } },
	hash = { { "alg", "u32" }, { "basis", "u32" } },
	push_mpls = { { "lse", "be32" }, { "ethertype", "x16" } },
	add_mpls = { { "lse", "be32" }, { "ethertype", "x16" },
		     { "tun_flags", "u16" } },
	ct_mark = { { "value", "u32" }, { "mask", "u32" } },
	zone_limit = { { "zone", "s32" }, { "limit", "u32" },
		       { "count", "u32" } },
}
for _, st in pairs(S) do st.struct = true end

-- Attribute sets: number -> { name, kind } where kind is a value kind, a
-- structure (S.*, repeated while bytes are left, as an MPLS stack or the
-- zone limits are), or another attribute set (a nest).
local KEY, TUNNEL, ACTIONS = {}, {}, {}

local function set(prefix, names)
	local t = {}
	for n, v in pairs(names) do
		t[n] = { prefix .. v[1], v[2] }
	end
	return t
end

local VXLAN = set("OVS_VXLAN_EXT_", { [1] = { "GBP", "u32" } })
for n, v in pairs(set("OVS_TUNNEL_KEY_ATTR_", {
	[0] = { "ID", "be64" }, { "IPV4_SRC", "ip4" }, { "IPV4_DST", "ip4" },
	{ "TOS", "u8" }, { "TTL", "u8" }, { "DONT_FRAGMENT", "flag" },
	{ "CSUM", "flag" }, { "OAM", "flag" }, { "GENEVE_OPTS", "bytes" },
	{ "TP_SRC", "be16" }, { "TP_DST", "be16" }, { "VXLAN_OPTS", VXLAN },
	{ "IPV6_SRC", "ip6" }, { "IPV6_DST", "ip6" }, { "PAD", "bytes" },
	{ "ERSPAN_OPTS", "bytes" }, { "IPV4_INFO_BRIDGE", "flag" } })) do
	TUNNEL[n] = v
end

local NSH = set("OVS_NSH_KEY_ATTR_", { { "BASE", "bytes" },
				       { "MD1", "bytes" }, { "MD2", "bytes" } })
for n, v in pairs(set("OVS_KEY_ATTR_", {
	{ "ENCAP", KEY }, { "PRIORITY", "u32" }, { "IN_PORT", "u32" },
	{ "ETHERNET", S.ethernet }, { "VLAN", "x16" }, { "ETHERTYPE", "x16" },
	{ "IPV4", S.ipv4 }, { "IPV6", S.ipv6 }, { "TCP", S.ports },
	{ "UDP", S.ports }, { "ICMP", S.icmp }, { "ICMPV6", S.icmp },
	{ "ARP", S.arp }, { "ND", S.nd }, { "SKB_MARK", "u32" },
	{ "TUNNEL", TUNNEL }, { "SCTP", S.ports }, { "TCP_FLAGS", "x16" },
	{ "DP_HASH", "u32" }, { "RECIRC_ID", "u32" }, { "MPLS", S.mpls },
	{ "CT_STATE", "x32" }, { "CT_ZONE", "u16" }, { "CT_MARK", "u32" },
	{ "CT_LABELS", "bytes" }, { "CT_ORIG_TUPLE_IPV4", S.tuple4 },
	{ "CT_ORIG_TUPLE_IPV6", S.tuple6 }, { "NSH", NSH },
	{ "PACKET_TYPE", "be32" }, { "ND_EXTENSIONS", "bytes" },
	{ "TUNNEL_INFO", "bytes" }, { "IPV6_EXTHDRS", "u16" } })) do
	KEY[n] = v
end

local USERSPACE = set("OVS_USERSPACE_ATTR_", {
	{ "PID", "u32" }, { "USERDATA", "bytes" },
	{ "EGRESS_TUN_PORT", "u32" }, { "ACTIONS", "flag" } })
local SAMPLE = set("OVS_SAMPLE_ATTR_", {
	{ "PROBABILITY", "u32" }, { "ACTIONS", ACTIONS } })
local NAT = set("OVS_NAT_ATTR_", {
	{ "SRC", "flag" }, { "DST", "flag" }, { "IP_MIN", "ip" },
	{ "IP_MAX", "ip" }, { "PROTO_MIN", "u16" }, { "PROTO_MAX", "u16" },
	{ "PERSISTENT", "flag" }, { "PROTO_HASH", "flag" },
	{ "PROTO_RANDOM", "flag" } })
local CT = set("OVS_CT_ATTR_", {
	{ "COMMIT", "flag" }, { "ZONE", "u16" }, { "MARK", S.ct_mark },
	{ "LABELS", "bytes" }, { "HELPER", "str" }, { "NAT", NAT },
	{ "FORCE_COMMIT", "flag" }, { "EVENTMASK", "x32" },
	{ "TIMEOUT", "str" } })
local CHECK_PKT_LEN = set("OVS_CHECK_PKT_LEN_ATTR_", {
	{ "PKT_LEN", "u16" }, { "ACTIONS_IF_GREATER", ACTIONS },
	{ "ACTIONS_IF_LESS_EQUAL", ACTIONS } })
local DEC_TTL = set("OVS_DEC_TTL_ATTR_", { { "ACTION", ACTIONS } })
local PSAMPLE = set("OVS_PSAMPLE_ATTR_", { { "GROUP", "u32" },
					   { "COOKIE", "bytes" } })
for n, v in pairs(set("OVS_ACTION_ATTR_", {
	{ "OUTPUT", "u32" }, { "USERSPACE", USERSPACE }, { "SET", KEY },
	{ "PUSH_VLAN", S.push_vlan }, { "POP_VLAN", "flag" },
	{ "SAMPLE", SAMPLE }, { "RECIRC", "u32" }, { "HASH", S.hash },
	{ "PUSH_MPLS", S.push_mpls }, { "POP_MPLS", "x16" },
	{ "SET_MASKED", KEY }, { "CT", CT }, { "TRUNC", "u32" },
	{ "PUSH_ETH", S.ethernet }, { "POP_ETH", "flag" },
	{ "CT_CLEAR", "flag" }, { "PUSH_NSH", NSH }, { "POP_NSH", "flag" },
	{ "METER", "u32" }, { "CLONE", ACTIONS },
	{ "CHECK_PKT_LEN", CHECK_PKT_LEN }, { "ADD_MPLS", S.add_mpls },
	{ "DEC_TTL", DEC_TTL }, { "DROP", "u32" },
	{ "PSAMPLE", PSAMPLE } })) do
	ACTIONS[n] = v
end

local BAND = set("OVS_BAND_ATTR_", {
	{ "TYPE", "u32" }, { "RATE", "u32" }, { "BURST", "u32" },
	{ "STATS", S.flow_stats } })
-- The bands of a meter: each a nest whose type says nothing.
local BANDS = setmetatable({}, { __index = function()
	return { "OVS_BAND", BAND }
end })
local VPORT_OPTIONS = set("OVS_TUNNEL_ATTR_", {
	{ "DST_PORT", "u16" }, { "EXTENSION", VXLAN } })
local UPCALL_STATS = set("OVS_VPORT_UPCALL_ATTR_", {
	[0] = { "SUCCESS", "u64" }, { "FAIL", "u64" } })

-- Per family: its commands and its attributes.
local FAMILIES = {
	ovs_datapath = {
		cmds = { "NEW", "DEL", "GET", "SET" },
		attrs = set("OVS_DP_ATTR_", {
			{ "NAME", "str" }, { "UPCALL_PID", "u32" },
			{ "STATS", S.dp_stats },
			{ "MEGAFLOW_STATS", S.megaflow_stats },
			{ "USER_FEATURES", "x32" }, { "PAD", "bytes" },
			{ "MASKS_CACHE_SIZE", "u32" },
			{ "PER_CPU_PIDS", "bytes" }, { "IFINDEX", "u32" } }),
	},
	ovs_vport = {
		cmds = { "NEW", "DEL", "GET", "SET" },
		attrs = set("OVS_VPORT_ATTR_", {
			{ "PORT_NO", "u32" }, { "TYPE", "u32" },
			{ "NAME", "str" }, { "OPTIONS", VPORT_OPTIONS },
			{ "UPCALL_PID", "bytes" },
			{ "STATS", S.vport_stats }, { "PAD", "bytes" },
			{ "IFINDEX", "u32" }, { "NETNSID", "s32" },
			{ "UPCALL_STATS", UPCALL_STATS } }),
	},
	ovs_flow = {
		cmds = { "NEW", "DEL", "GET", "SET" },
		attrs = set("OVS_FLOW_ATTR_", {
			{ "KEY", KEY }, { "ACTIONS", ACTIONS },
			{ "STATS", S.flow_stats }, { "TCP_FLAGS", "u8" },
			{ "USED", "u64" }, { "CLEAR", "flag" },
			{ "MASK", KEY }, { "PROBE", "flag" },
			{ "UFID", "ufid" }, { "UFID_FLAGS", "u32" },
			{ "PAD", "bytes" } }),
	},
	ovs_packet = {
		cmds = { "MISS", "ACTION", "EXECUTE" },
		attrs = set("OVS_PACKET_ATTR_", {
			{ "PACKET", "frame" }, { "KEY", KEY },
			{ "ACTIONS", ACTIONS }, { "USERDATA", "bytes" },
			{ "EGRESS_TUN_KEY", TUNNEL }, { "UNUSED1", "bytes" },
			{ "UNUSED2", "bytes" }, { "PROBE", "flag" },
			{ "MRU", "u16" }, { "LEN", "u32" }, { "HASH", "u64" } }),
	},
	ovs_meter = {
		cmds = { "FEATURES", "SET", "DEL", "GET" },
		attrs = set("OVS_METER_ATTR_", {
			{ "ID", "u32" }, { "KBPS", "flag" },
			{ "STATS", S.flow_stats }, { "BANDS", BANDS },
			{ "USED", "u64" }, { "CLEAR", "flag" },
			{ "MAX_METERS", "u32" }, { "MAX_BANDS", "u32" },
			{ "PAD", "bytes" } }),
	},
	ovs_ct_limit = {
		cmds = { "SET", "DEL", "GET" },
		attrs = set("OVS_CT_LIMIT_ATTR_", {
			{ "ZONE_LIMIT", S.zone_limit } }),
	},
}

local dissect_attrs

-- A structure's fields, repeated while whole ones are left; what is left
-- after them (a SET_MASKED's mask) as bytes.
local function dissect_struct(st, r, tree)
	local size = 0
	for _, f in ipairs(st) do size = size + SIZE[f[2]] end
	local off, parts = 0, {}
	while off + size <= r:len() do
		local words = {}
		for _, f in ipairs(st) do
			local n = SIZE[f[2]]
			words[#words + 1] = f[1] .. "=" .. value(f[2], r(off, n))
			off = off + n
		end
		parts[#parts + 1] = table.concat(words, ",")
		if size == 0 then break end
	end
	if off < r:len() then
		parts[#parts + 1] = "rest=" .. r(off):bytes():tohex()
	end
	return table.concat(parts, " ")
end

-- The attributes in r by attrs' names, under tree.
dissect_attrs = function(r, attrs, tree, pinfo)
	local off = 0
	while off + 4 <= r:len() do
		local len = r(off, 2):le_uint()
		local atype = bit32.band(r(off + 2, 2):le_uint(), 0x3fff)
		if len < 4 or off + len > r:len() then
			tree:add_expert_info(PI_MALFORMED, PI_ERROR,
					     "attribute length " .. len)
			return
		end
		local spec = attrs[atype] or { "attribute " .. atype, "bytes" }
		local name, kind = spec[1], spec[2]
		local whole = r(off, len)
		local pay = len > 4 and r(off + 4, len - 4) or nil
		local item
		if kind == "flag" or not pay then
			item = tree:add(ovs, whole, name)
		elseif type(kind) == "table" and kind.struct then
			item = tree:add(ovs, whole, name .. ": " ..
					dissect_struct(kind, pay, tree))
		elseif type(kind) == "table" then
			item = tree:add(ovs, whole, name)
			dissect_attrs(pay, kind, item, pinfo)
		elseif kind == "ufid" then
			item = tree:add(ovs, whole, name .. ": " ..
					pay:bytes():tohex())
			item:add(F.ufid, pay)
		elseif kind == "frame" then
			item = tree:add(ovs, whole, name .. ": " ..
					pay:len() .. " bytes")
			if eth_dissector then
				eth_dissector:call(pay:tvb(), pinfo, item)
			end
		elseif SIZE[kind] and pay:len() ~= SIZE[kind] then
			item = tree:add(ovs, whole, name .. ": " ..
					pay:bytes():tohex() .. " (length " ..
					pay:len() .. ", not " .. SIZE[kind] ..
					")")
		else
			item = tree:add(ovs, whole, name .. ": " ..
					value(kind, pay))
		end
		item:add(F.attr, whole, name):set_hidden()
		if attrs == KEY and name == "OVS_KEY_ATTR_IN_PORT" and pay then
			item:add_le(F.in_port, pay):set_hidden()
		elseif attrs == ACTIONS and name == "OVS_ACTION_ATTR_OUTPUT" and
		       pay then
			item:add_le(F.output, pay):set_hidden()
		end
		off = off + bit32.band(len + 3, bit32.bnot(3))
	end
end

local function dissector_for(name, fam)
	return function(tvb, pinfo, tree)
		-- The generic netlink header, then struct ovs_header.
		if tvb:len() < 8 then return 0 end
		local cmd = tvb(0, 1):uint()
		local cmd_name = fam.cmds[cmd] or tostring(cmd)
		local t = tree:add(ovs, tvb(), "Open vSwitch " .. name .. " " ..
				   cmd_name)
		t:add(F.family, name)
		t:add(F.cmd, tvb(0, 1))
		t:add(F.cmd_name, tvb(0, 1), cmd_name)
		t:add_le(F.dp_ifindex, tvb(4, 4))
		pinfo.cols.info:append(" " .. name .. " " .. cmd_name)
		if tvb:len() > 8 then
			dissect_attrs(tvb(8), fam.attrs, t, pinfo)
		end
		return tvb:len()
	end
end

local genl = DissectorTable.get("genl.family")
for name, fam in pairs(FAMILIES) do
	local p = Proto("ovs_" .. name:sub(5), "Open vSwitch " .. name)
	p.dissector = dissector_for(name, fam)
	genl:add(name, p)
end

/* SPDX-License-Identifier: MIT */
/*
 * phoenix_wire.c - Phoenix messages on the wire (phoenix.h): encoding and
 * decoding, little-endian, a header then the per-tree items.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "phoenix.h"

/* ------------------------------------------------------------------ */
/* Wire format                                                         */
/* ------------------------------------------------------------------ */

#define PHX_HDR 26
#define PHX_VERSION 1

static const char *const type_names[PHX_NTYPES] = {
	[PHX_PROBE] = "probe",   [PHX_PROBE_ACK] = "probe-ack", [PHX_STATE] = "state",
	[PHX_SERIAL] = "serial", [PHX_JOIN] = "join",           [PHX_ACCEPT] = "accept",
	[PHX_REJECT] = "reject", [PHX_LEAVE] = "leave",
};

const char *phx_type_name(int type)
{
	if (type <= 0 || type >= PHX_NTYPES)
		return "?";
	return type_names[type];
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static uint16_t get16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return (uint64_t)get32(p) | (uint64_t)get32(p + 4) << 32;
}

static int is_state(int type)
{
	return type == PHX_PROBE_ACK || type == PHX_STATE;
}

int phx_encode(const struct phx_msg *m, void *buf, size_t len)
{
	uint8_t *p = buf;
	size_t need;

	if (m->type <= 0 || m->type >= PHX_NTYPES ||
	    m->nitems > (is_state(m->type) ? PHX_STATE_MAX : PHX_ITEMS_MAX))
		return -EINVAL;
	need = is_state(m->type) ? PHX_HDR + 4 + 8 * (size_t)m->nitems
				 : PHX_HDR + 12 * (size_t)m->nitems;
	if (len < need)
		return -ENOSPC;
	p[0] = 'P';
	p[1] = 'X';
	p[2] = PHX_VERSION;
	p[3] = m->type;
	put16(p + 4, m->src);
	put16(p + 6, m->dst);
	put16(p + 8, m->nitems);
	put32(p + 10, m->round);
	put64(p + 14, m->stamp);
	put32(p + 22, m->hold);
	if (is_state(m->type)) {
		uint32_t first = m->nitems ? m->item[0].root : 0;

		put32(p + PHX_HDR, first);
		for (int i = 0; i < m->nitems; i++) {
			uint8_t *q = p + PHX_HDR + 4 + 8 * i;

			if (m->item[i].root != first + (uint32_t)i)
				return -EINVAL;
			put32(q, m->item[i].serial);
			put32(q + 4, m->item[i].lat);
		}
		return (int)need;
	}
	for (int i = 0; i < m->nitems; i++) {
		uint8_t *q = p + PHX_HDR + 12 * i;

		put32(q, m->item[i].root);
		put32(q + 4, m->item[i].serial);
		put32(q + 8, m->item[i].lat);
	}
	return (int)need;
}

int phx_decode(struct phx_msg *m, const void *buf, size_t len)
{
	const uint8_t *p = buf;

	if (len < PHX_HDR || p[0] != 'P' || p[1] != 'X' || p[2] != PHX_VERSION)
		return -EINVAL;
	m->type = p[3];
	m->src = get16(p + 4);
	m->dst = get16(p + 6);
	m->nitems = get16(p + 8);
	m->round = get32(p + 10);
	m->stamp = get64(p + 14);
	m->hold = get32(p + 22);
	m->rx = 0;
	if (m->type <= 0 || m->type >= PHX_NTYPES)
		return -EINVAL;
	if (is_state(m->type)) {
		uint32_t first;

		if (m->nitems > PHX_STATE_MAX || len != PHX_HDR + 4 + 8 * (size_t)m->nitems)
			return -EINVAL;
		first = get32(p + PHX_HDR);
		for (int i = 0; i < m->nitems; i++) {
			const uint8_t *q = p + PHX_HDR + 4 + 8 * i;

			m->item[i].root = first + (uint32_t)i;
			m->item[i].serial = get32(q);
			m->item[i].lat = get32(q + 4);
		}
		return 0;
	}
	if (m->nitems > PHX_ITEMS_MAX || len != PHX_HDR + 12 * (size_t)m->nitems)
		return -EINVAL;
	for (int i = 0; i < m->nitems; i++) {
		const uint8_t *q = p + PHX_HDR + 12 * i;

		m->item[i].root = get32(q);
		m->item[i].serial = get32(q + 4);
		m->item[i].lat = get32(q + 8);
	}
	return 0;
}

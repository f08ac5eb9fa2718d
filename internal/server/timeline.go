package server

import (
	"context"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/agentmail/agentmail/internal/service"
	"github.com/agentmail/agentmail/internal/web"
)

// timelineRequest reads a timeline's filters and cursor from a query
// string, as the timeline API route and the project page both take them:
// agent, kinds (or kind), task, category, importance, topic, unread,
// awaiting_ack, before and limit.
func timelineRequest(q url.Values) (service.TimelineRequest, error) {
	req := service.TimelineRequest{Agent: q.Get("agent"), Category: q.Get("category"), Importance: q.Get("importance"),
		Topic: q.Get("topic"), Task: strings.TrimSpace(q.Get("task")), Before: q.Get("before")}
	// ?kinds=lease,task (the API) or ?kind=lease (the page's form).
	for _, v := range append(q["kinds"], q["kind"]...) {
		for _, k := range strings.Split(v, ",") {
			if k = strings.TrimSpace(k); k != "" {
				req.Kinds = append(req.Kinds, k)
			}
		}
	}
	for _, f := range []struct {
		key string
		to  *bool
	}{{"unread", &req.Unread}, {"awaiting_ack", &req.AwaitingAck}} {
		if v := q.Get(f.key); v != "" {
			b, err := strconv.ParseBool(v)
			if err != nil {
				return req, invalid(fmt.Sprintf("?%s=%q is not a boolean", f.key, v), "pass ?"+f.key+"=true or leave it out")
			}
			*f.to = b
		}
	}
	if v := q.Get("limit"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			return req, invalid(fmt.Sprintf("?limit=%q is not a count", v), fmt.Sprintf("pass a whole number from 1 to %d", service.TimelineMaxPage))
		}
		req.Limit = n
	}
	return req, nil
}

// apiTimeline answers GET /api/projects/{project}/timeline: the timeline
// document.
func apiTimeline(ctx context.Context, c *apiCall) (any, error) {
	req, err := timelineRequest(c.r.URL.Query())
	if err != nil {
		return nil, err
	}
	return c.svc.Timeline(ctx, c.watch(""), req)
}

// timelineView is the timeline of the project page: req's page of it and
// the filters as the page's form shows them.
func timelineView(ctx context.Context, p *pageRequest) (web.Timeline, error) {
	req, err := timelineRequest(p.r.URL.Query())
	if err != nil {
		return web.Timeline{}, err
	}
	resp, err := p.svc.Timeline(ctx, p.scope, req)
	if err != nil {
		return web.Timeline{}, err
	}
	t := web.Timeline{Items: mapSlice(resp.Items, timelineItemView), Filter: web.TimelineFilter{
		Agent: req.Agent, Kind: p.r.URL.Query().Get("kind"), Task: req.Task, Category: req.Category, Importance: req.Importance, Topic: req.Topic,
		Unread: req.Unread, AwaitingAck: req.AwaitingAck, Limit: req.Limit}}
	if resp.Next != "" {
		q := p.r.URL.Query()
		q.Set("before", resp.Next)
		t.Older = web.ProjectURL(p.page.Project.Slug) + "?" + q.Encode()
	}
	t.Newest = req.Before == ""
	return t, nil
}

// timelineItemView is a timeline item as the project page shows it.
func timelineItemView(it service.TimelineItem) web.TimelineItem {
	v := web.TimelineItem{Kind: it.Kind, Key: it.Key, Event: it.Event, Agent: it.Agent, By: it.By, Note: it.Note, At: it.At.Time}
	if it.Message != nil {
		m := messageView(*it.Message)
		v.Message = &m
	}
	if r := it.Reservation; r != nil {
		v.Pattern, v.Exclusive = r.Pattern, r.Exclusive
	}
	if it.Task != nil {
		v.Task = web.TaskRef{ID: it.Task.ID, Title: it.Task.Title}
	}
	return v
}

// latestMessage is a project's newest message, nil when it has none: what
// the projects page links to.
func latestMessage(ctx context.Context, svc *service.Service, key string) (*web.Message, error) {
	resp, err := svc.Timeline(ctx, service.Scope{Project: service.ProjectRef{Key: key}}, service.TimelineRequest{Limit: 1, Kinds: []string{service.KindMessage, service.KindPost}})
	if err != nil || len(resp.Messages) == 0 {
		return nil, err
	}
	m := messageView(resp.Messages[0])
	return &m, nil
}

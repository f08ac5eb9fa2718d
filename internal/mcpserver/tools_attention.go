package mcpserver

import (
	"context"
	"fmt"

	"github.com/agentmail/agentmail/internal/service"
)

// addAttentionTools adds what draws an agent's attention besides its
// inbox: the channels it subscribes to.
func (s *Server) addAttentionTools() {
	addTool(s, tool{name: "subscribe_topic", desc: "Follow a channel (a topic): its new posts by other agents (send_message with the topic and no recipients) " +
		"then show in check_mail and fetch_inbox (posts), and wait_for_mail with the topic waits for the next. Remembered with the project. Returns your channels with their unread posts."},
		textSubscribed("subscribed to"), s.subscribeTopic)
	addTool(s, tool{name: "unsubscribe_topic", desc: "Stop following a channel. Returns the channels you still follow."},
		textSubscribed("unsubscribed from"), s.unsubscribeTopic)
}

type channelArgs struct {
	agentArgs
	Topic string `json:"topic" jsonschema:"the channel: 1-64 letters, digits, _ . -; case-insensitive"`
}

func (s *Server) subscribeTopic(ctx context.Context, c *call, in channelArgs) (service.SubscriptionsResponse, error) {
	return subscribe(ctx, c, in, true)
}

func (s *Server) unsubscribeTopic(ctx context.Context, c *call, in channelArgs) (service.SubscriptionsResponse, error) {
	return subscribe(ctx, c, in, false)
}

func subscribe(ctx context.Context, c *call, in channelArgs, on bool) (service.SubscriptionsResponse, error) {
	sc, err := c.scope(in.projectArgs, in.AgentName)
	if err != nil {
		return service.SubscriptionsResponse{}, err
	}
	return c.svc.Subscribe(ctx, sc, in.Topic, on)
}

func textSubscribed(verb string) func(service.SubscriptionsResponse) string {
	return func(r service.SubscriptionsResponse) string {
		head := verb + " " + r.Topic
		if r.Changed != nil && !*r.Changed {
			head += " (already so)"
		}
		return head + "\n" + listing("channels you follow", lines(r.Subscriptions, func(ch service.Channel) string {
			return fmt.Sprintf("%s: %s", ch.Topic, count(ch.Unread, "unread post", "unread posts"))
		}))
	}
}

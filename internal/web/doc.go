// Package web is the web face of agentmail serve.
package web

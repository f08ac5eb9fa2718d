package service

import "context"

// ContactResponse is the document of contacts request, approve and deny:
// {"contact": contact}.
type ContactResponse struct {
	Contact Contact `json:"contact"`
}

// ContactRequest asks an agent for permission to write to it.
type ContactRequest struct {
	To     string
	Reason string
}

// RequestContact asks agent req.To for permission to write to it, as the
// acting agent.
func (s *Service) RequestContact(ctx context.Context, sc Scope, req ContactRequest) (ContactResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ContactResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return ContactResponse{}, err
	}
	c, err := x.mb.RequestContact(ctx, req.To, req.Reason)
	if err != nil {
		return ContactResponse{}, err
	}
	return ContactResponse{Contact: contactDoc(c)}, nil
}

// DecideContact approves (for mailbox.ContactTTL) or denies from's request
// to write to the acting agent.
func (s *Service) DecideContact(ctx context.Context, sc Scope, from string, approve bool) (ContactResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ContactResponse{}, err
	}
	if err := x.writable(ctx); err != nil {
		return ContactResponse{}, err
	}
	c, err := x.mb.DecideContact(ctx, from, approve)
	if err != nil {
		return ContactResponse{}, err
	}
	return ContactResponse{Contact: contactDoc(c)}, nil
}

// ContactsResponse is the document of contacts list: {"contacts":
// [contact...]}.
type ContactsResponse struct {
	Contacts []Contact `json:"contacts"`
}

// Contacts lists the requests to and from the acting agent.
func (s *Service) Contacts(ctx context.Context, sc Scope) (ContactsResponse, error) {
	x, err := s.session(ctx, sc)
	if err != nil {
		return ContactsResponse{}, err
	}
	cs, err := x.mb.Contacts(ctx)
	if err != nil {
		return ContactsResponse{}, err
	}
	return ContactsResponse{Contacts: mapSlice(cs, contactDoc)}, nil
}

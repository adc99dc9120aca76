package queue

import (
	"net/http"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func writeMessages(q *request, status int, msgs []Message, full bool) error {
	doc := messagesXML{Messages: make([]messageXML, 0, len(msgs))}
	for _, m := range msgs {
		doc.Messages = append(doc.Messages, messageToXML(m, full))
	}
	q.w.Header().Set("Cache-Control", "no-cache")
	azhttp.WriteXMLBody(q.w, status, appendMessages(make([]byte, 0, 512), doc))
	return nil
}

func (h *handler) putMessage(q *request) error {
	o, err := putOptions(q.q, q.r.Header.Get("X-Ms-Version"))
	if err != nil {
		return err
	}
	text, err := readMessageText(q.r, false)
	if err != nil {
		return err
	}
	m, err := h.svc.PutMessage(q.ctx(), q.acct, q.path.queue, *text, o)
	if err != nil {
		return err
	}
	return writeMessages(q, http.StatusCreated, []Message{*m}, false)
}

func (h *handler) getMessages(q *request) error {
	n, err := numMessages(q.q)
	if err != nil {
		return err
	}
	vt, err := intParam(q.q, "visibilitytimeout", int64(DefaultGetVisibility/time.Second), 1, int64(MaxVisibilityTimeout/time.Second))
	if err != nil {
		return err
	}
	msgs, err := h.svc.GetMessages(q.ctx(), q.acct, q.path.queue, n, seconds(vt))
	if err != nil {
		return err
	}
	return writeMessages(q, http.StatusOK, msgs, true)
}

func (h *handler) peekMessages(q *request) error {
	n, err := numMessages(q.q)
	if err != nil {
		return err
	}
	msgs, err := h.svc.PeekMessages(q.ctx(), q.acct, q.path.queue, n)
	if err != nil {
		return err
	}
	return writeMessages(q, http.StatusOK, msgs, true)
}

func (h *handler) clearMessages(q *request) error {
	if err := h.svc.ClearMessages(q.ctx(), q.acct, q.path.queue); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

// popReceipt reads the required popreceipt parameter.
func popReceipt(q *request) (string, error) {
	v := q.q.Get("popreceipt")
	if v == "" {
		return "", azerr.MissingRequiredQueryParameter("popreceipt")
	}
	return v, nil
}

func (h *handler) deleteMessage(q *request) error {
	rc, err := popReceipt(q)
	if err != nil {
		return err
	}
	if err := h.svc.DeleteMessage(q.ctx(), q.acct, q.path.queue, q.path.id, rc); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) updateMessage(q *request) error {
	rc, err := popReceipt(q)
	if err != nil {
		return err
	}
	if !q.q.Has("visibilitytimeout") {
		return azerr.MissingRequiredQueryParameter("visibilitytimeout")
	}
	vt, err := intParam(q.q, "visibilitytimeout", 0, 0, int64(MaxVisibilityTimeout/time.Second))
	if err != nil {
		return err
	}
	text, err := readMessageText(q.r, true)
	if err != nil {
		return err
	}
	m, err := h.svc.UpdateMessage(q.ctx(), q.acct, q.path.queue, q.path.id, rc, seconds(vt), text)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	hdr.Set("X-Ms-Popreceipt", m.PopReceipt)
	hdr.Set("X-Ms-Time-Next-Visible", azhttp.HTTPTime(m.Visible))
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}
